// Greedy decoding (argmax at temperature 0) and sampling from softmax(logits / T) with a seeded,
// reproducible generator; with best-of-N each of the n_group rows samples independently.
#pragma once

#include "core/decoding/token_decoder.h"

#include <cstdint>
#include <random>

namespace hearsay {

class GreedyDecoder final : public TokenDecoder {
public:
    GreedyDecoder(float temperature, int eot, uint64_t seed = 0);
    void reset() override;
    DecoderStep update(std::vector<std::vector<int>>& tokens, std::span<const float> logits, int nVocab,
                       std::vector<float>& sumLogprobs) override;
    std::vector<DecodedCandidate> finalize(const std::vector<std::vector<int>>& tokens,
                                           const std::vector<float>& sumLogprobs) override;

    // One draw from softmax(logits / temperature); -inf logits are never drawn. uniform is in [0, 1).
    static int sampleIndex(std::span<const float> logits, float temperature, double uniform);
    static int argmax(std::span<const float> logits);  // first maximum, as torch.argmax

private:
    float m_temperature;
    int m_eot;
    uint64_t m_seed;
    std::mt19937_64 m_rng;
};

} // namespace hearsay
