// Beam search as the reference's BeamSearchDecoder: each beam proposes its beam_size + 1 best
// continuations, the best beam_size unfinished ones survive, finished ones are collected until
// round(beam_size * patience) of them exist.
#pragma once

#include "core/decoding/token_decoder.h"

#include <utility>

namespace hearsay {

class BeamSearchDecoder final : public TokenDecoder {
public:
    BeamSearchDecoder(int beamSize, int eot, float patience = 0.0f);  // patience 0: 1.0
    void reset() override;
    DecoderStep update(std::vector<std::vector<int>>& tokens, std::span<const float> logits, int nVocab,
                       std::vector<float>& sumLogprobs) override;
    // Finished sequences in the order they finished; when fewer than beam_size finished, the live
    // beams (best first) are added with an EOT appended.
    std::vector<DecodedCandidate> finalize(const std::vector<std::vector<int>>& tokens,
                                           const std::vector<float>& sumLogprobs) override;

    int maxCandidates() const { return m_maxCandidates; }
    const std::vector<DecodedCandidate>& finished() const { return m_finished; }

private:
    int m_beamSize;
    int m_eot;
    int m_maxCandidates;
    std::vector<DecodedCandidate> m_finished;  // in insertion order (the reference's dict)
};

// The k largest entries of a row, largest first; equal values in index order.
std::vector<std::pair<float, int>> topK(std::span<const float> row, int k);

} // namespace hearsay
