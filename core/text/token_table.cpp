// Byte strings by id in one buffer (see token_table.h).
#include "core/text/token_table.h"

#include <stdexcept>

namespace hearsay {

TokenTable::TokenTable(const std::vector<std::string>& tokens) {
    size_t total = 0;
    for (const std::string& t : tokens)
        total += t.size();
    // Not reached from a file: the loaders bound each token (kMaxTokenBytes) and their count.
    if (total > UINT32_MAX) throw std::length_error("a token table of over 4 GiB");
    m_bytes.reserve(total);
    m_ends.reserve(tokens.size());
    for (const std::string& t : tokens) {
        m_bytes += t;
        m_ends.push_back(uint32_t(m_bytes.size()));
    }
}

std::string tooLongTokenMessage(size_t id, size_t bytes) {
    return "token " + std::to_string(id) + " is " + std::to_string(bytes) + " bytes long (at most " +
           std::to_string(kMaxTokenBytes) + ")";
}

std::vector<std::string> TokenTable::strings() const {
    std::vector<std::string> out;
    out.reserve(size());
    for (size_t id = 0; id < size(); ++id)
        out.emplace_back((*this)[id]);
    return out;
}

} // namespace hearsay
