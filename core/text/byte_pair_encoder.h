// Byte-level BPE with tiktoken's rule: the rank of a byte string is its token id, a piece that
// is a token is that token, otherwise the adjacent pair whose concatenation has the lowest rank
// (leftmost on ties) is merged until no pair is a token.
#pragma once

#include "core/text/token_table.h"
#include "core/util/result.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

class BytePairEncoder {
public:
    // (*tokens)[id] holds the bytes of token id for the ids below `count` (the table may hold
    // more after them; they are not used). The table is shared, not copied: a model and its
    // tokenizer keep one. The ids in `excluded` keep their bytes for token() but never come out of
    // encoding, nor do empty tokens. Fails on a duplicate token among the others, or when a single
    // byte has no token (then some text could not be encoded).
    static Result<BytePairEncoder> create(std::shared_ptr<const TokenTable> tokens, size_t count,
                                          const std::vector<int>& excluded = {});

    BytePairEncoder(BytePairEncoder&&) = default;
    BytePairEncoder& operator=(BytePairEncoder&&) = default;
    BytePairEncoder(const BytePairEncoder&) = delete;
    BytePairEncoder& operator=(const BytePairEncoder&) = delete;

    // Appends the ids of one pre-tokenised piece to out.
    void encodePiece(std::string_view piece, std::vector<int>& out) const;
    // Id of the token with exactly these bytes, or -1.
    int rank(std::string_view bytes) const;

    int size() const { return static_cast<int>(m_count); }
    std::string_view token(int id) const { return (*m_tokens)[static_cast<size_t>(id)]; }

private:
    BytePairEncoder() = default;
    void merge(std::string_view piece, std::vector<int>& out) const;

    // The slot where `bytes` is or would go in m_slots (open addressing, linear probing).
    size_t slotOf(std::string_view bytes) const;

    std::shared_ptr<const TokenTable> m_tokens;  // id -> bytes
    size_t m_count = 0;                          // the ids 0 .. m_count-1 are this encoder's
    std::vector<int32_t> m_slots;  // bytes -> id: a hash table of ids, -1 where empty, at most half full
    std::array<int, 256> m_byteRank{};  // single byte -> id
};

} // namespace hearsay
