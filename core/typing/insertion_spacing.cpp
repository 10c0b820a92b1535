// Spacing between the insertions of a dictation (see insertion_spacing.h).
#include "core/typing/insertion_spacing.h"

namespace hearsay {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

} // namespace

std::string InsertionSpacing::next(std::string_view committed) {
    size_t first = 0;
    while (first < committed.size() && isSpace(committed[first])) ++first;
    if (first == committed.size()) return {};
    std::string out;
    if (m_typed && !m_lastWasSpace) out += ' ';
    out.append(committed.substr(first));
    m_typed = true;
    m_lastWasSpace = isSpace(out.back());
    return out;
}

} // namespace hearsay
