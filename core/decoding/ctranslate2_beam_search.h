// Beam search as CTranslate2 runs it (what faster-whisper uses), for output identical to
// faster-whisper's: each step takes the 2·beam best continuations over all beams together; an
// end-of-text among the first `beam` of them finishes that hypothesis and its slot goes to the next
// unfinished candidate after the first `beam` (end-of-text candidates there are dropped, not
// finished); decoding stops once round(beam · patience) hypotheses finished. OpenAI's rules
// (beam_search_decoder.h) differ: each beam proposes beam+1 continuations, and every end-of-text
// ranked above the last surviving beam finishes, up to the limit.
#pragma once

#include "core/decoding/token_decoder.h"

namespace hearsay {

class CTranslate2BeamSearchDecoder final : public TokenDecoder {
public:
    CTranslate2BeamSearchDecoder(int beamSize, int eot, float patience = 0.0f);  // patience 0: 1.0
    void reset() override;
    DecoderStep update(std::vector<std::vector<int>>& tokens, std::span<const float> logits, int nVocab,
                       std::vector<float>& sumLogprobs) override;
    // The finished hypotheses; when decoding stopped at the length limit, the live beams too (as
    // CTranslate2 registers every beam at its last step), each ending with EOT.
    std::vector<DecodedCandidate> finalize(const std::vector<std::vector<int>>& tokens,
                                           const std::vector<float>& sumLogprobs) override;

private:
    int m_beamSize;
    int m_eot;
    int m_maxCandidates;
    bool m_firstStep = true;
    std::vector<DecodedCandidate> m_finished;
};

} // namespace hearsay
