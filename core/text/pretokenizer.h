// GPT-2's pre-tokenisation, written by hand: the pieces that
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// matches, left to right, as tiktoken finds them. BPE never merges across pieces.
#pragma once

#include <cstddef>
#include <string_view>

namespace hearsay {

// End (exclusive byte offset) of the piece that starts at text[pos], pos < text.size().
// Bytes that are not valid UTF-8 count as CharClass::Other characters, one maximal invalid
// subpart at a time, so any input splits into pieces without loss.
size_t gpt2PieceEnd(std::string_view text, size_t pos);

// Calls f(piece) for each piece of text, in order.
template <class F>
void forEachGpt2Piece(std::string_view text, F&& f) {
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t end = gpt2PieceEnd(text, pos);
        f(text.substr(pos, end - pos));
        pos = end;
    }
}

} // namespace hearsay
