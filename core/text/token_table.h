// The byte strings of a vocabulary, by id, in one buffer. Whisper's 50k tokens hold about 320 KB of
// bytes; as a std::vector<std::string> they took 1.6 MB (32 bytes for each string before any of its
// own), and the model and the tokenizer each kept one. Here they take the bytes and four bytes of
// end offset a token. The loaders refuse a token longer than kMaxTokenBytes, so a vocabulary of
// Whisper's size stays far below the 4 GiB the offsets can address.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

// The longest token a vocabulary file may hold (Whisper's longest are a few dozen bytes).
constexpr size_t kMaxTokenBytes = 4096;
// What a reader says of token `id` when its `bytes` are more than that.
std::string tooLongTokenMessage(size_t id, size_t bytes);

class TokenTable {
public:
    TokenTable() = default;
    explicit TokenTable(const std::vector<std::string>& tokens);

    size_t size() const { return m_ends.size(); }
    bool empty() const { return m_ends.empty(); }
    std::string_view operator[](size_t id) const {
        const uint32_t begin = id == 0 ? 0 : m_ends[id - 1];
        return std::string_view(m_bytes).substr(begin, m_ends[id] - begin);
    }
    std::vector<std::string> strings() const;  // a copy in the vector form (writers, repairs)
    size_t heapBytes() const { return m_bytes.capacity() + m_ends.capacity() * sizeof(uint32_t); }

    bool operator==(const TokenTable&) const = default;

private:
    std::string m_bytes;          // every token's bytes, one after another
    std::vector<uint32_t> m_ends;  // token id's bytes end at m_ends[id]
};

} // namespace hearsay
