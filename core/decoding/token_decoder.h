// How the next token of each sequence is chosen from its (filtered) logits: the interface shared
// by greedy/sampling decoding and beam search, as the reference's TokenDecoder.
#pragma once

#include <span>
#include <vector>

namespace hearsay {

// A finished sequence: the whole token sequence (initial tokens included) ending with EOT, and its
// cumulative log-probability.
struct DecodedCandidate {
    std::vector<int> tokens;
    double sumLogprob = 0.0;
};

struct DecoderStep {
    bool completed = false;        // every sequence finished (or enough beams finished)
    std::vector<int> sourceBeams;  // new row b continues old row sourceBeams[b]; empty: rows unchanged
};

class TokenDecoder {
public:
    virtual ~TokenDecoder() = default;
    virtual void reset() = 0;
    // tokens: n_group sequences, extended in place by one token each; logits: [n_group][nVocab]
    // after the filters; sumLogprobs: [n_group] cumulative log-probabilities, updated in place.
    virtual DecoderStep update(std::vector<std::vector<int>>& tokens, std::span<const float> logits, int nVocab,
                               std::vector<float>& sumLogprobs) = 0;
    // The candidates to rank once decoding stops.
    virtual std::vector<DecodedCandidate> finalize(const std::vector<std::vector<int>>& tokens,
                                                   const std::vector<float>& sumLogprobs) = 0;
};

} // namespace hearsay
