// Byte-level BPE with tiktoken's rule: the rank of a byte string is its token id, a piece that
// is a token is that token, otherwise the adjacent pair whose concatenation has the lowest rank
// (leftmost on ties) is merged until no pair is a token.
#pragma once

#include "core/util/result.h"

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hearsay {

class BytePairEncoder {
public:
    // tokens[id] holds the bytes of token id; the ids in `excluded` keep their bytes for
    // token() but never come out of encoding, nor do empty tokens. Fails on a duplicate token
    // among the others, or when a single byte has no token (then some text could not be encoded).
    static Result<BytePairEncoder> create(std::vector<std::string> tokens, const std::vector<int>& excluded = {});

    BytePairEncoder(BytePairEncoder&&) = default;
    BytePairEncoder& operator=(BytePairEncoder&&) = default;
    BytePairEncoder(const BytePairEncoder&) = delete;  // m_ranks points into m_tokens
    BytePairEncoder& operator=(const BytePairEncoder&) = delete;

    // Appends the ids of one pre-tokenised piece to out.
    void encodePiece(std::string_view piece, std::vector<int>& out) const;
    // Id of the token with exactly these bytes, or -1.
    int rank(std::string_view bytes) const;

    int size() const { return static_cast<int>(m_tokens.size()); }
    const std::string& token(int id) const { return m_tokens[static_cast<size_t>(id)]; }

private:
    BytePairEncoder() = default;
    void merge(std::string_view piece, std::vector<int>& out) const;

    std::vector<std::string> m_tokens;                   // id -> bytes
    std::unordered_map<std::string_view, int> m_ranks;  // bytes (views into m_tokens) -> id
    std::array<int, 256> m_byteRank{};                  // single byte -> id
};

} // namespace hearsay
