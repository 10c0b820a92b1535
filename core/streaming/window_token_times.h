// When each token of a streaming window was spoken, in seconds from the window's start: from
// the words aligned on the window's last hypothesis (the cross-attention's word timestamps) when
// the tokens asked about are that hypothesis or its beginning, else estimated by sharing each
// segment's time out over its tokens' characters.
#pragma once

#include "core/decoding/word_alignment.h"
#include "core/text/tokenizer.h"

#include <vector>

namespace hearsay {

struct TokenTime {
    double start = 0.0;
    double end = 0.0;
    int word = -1;             // index of the aligned word the token belongs to; -1: estimated
    double probability = 0.0;  // of that word
};

class WindowTokenTimes {
public:
    // Forgets the alignment (the window moved).
    void clear();
    // The words aligned on `tokens` (the window's tokens: text and timestamps); ignored when their
    // tokens are not the text tokens of `tokens` in order.
    void setAligned(const std::vector<int>& tokens, const std::vector<AlignedWord>& words, int timestampBegin);
    // Times of `tokens` in a window holding windowSeconds of audio.
    std::vector<TokenTime> times(const Tokenizer& tokenizer, const std::vector<int>& tokens, double windowSeconds) const;

private:
    std::vector<int> m_tokens;
    std::vector<TokenTime> m_times;
};

} // namespace hearsay
