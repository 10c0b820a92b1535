// Greedy and temperature sampling decoders (the reference's GreedyDecoder).
#include "core/decoding/greedy_decoder.h"

#include "core/decoding/log_softmax.h"

#include <algorithm>
#include <cmath>

namespace hearsay {

GreedyDecoder::GreedyDecoder(float temperature, int eot, uint64_t seed)
    : m_temperature(temperature), m_eot(eot), m_seed(seed), m_rng(seed) {}

void GreedyDecoder::reset() { m_rng.seed(m_seed); }

int GreedyDecoder::argmax(std::span<const float> logits) {
    return int(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

int GreedyDecoder::sampleIndex(std::span<const float> logits, float temperature, double uniform) {
    const float maxLogit = *std::max_element(logits.begin(), logits.end());
    if (!std::isfinite(maxLogit)) return argmax(logits);
    double total = 0.0;
    for (float v : logits) total += std::isfinite(v) ? std::exp(double(v - maxLogit) / double(temperature)) : 0.0;
    const double target = uniform * total;
    double cumulative = 0.0;
    int lastDrawable = 0;
    for (size_t i = 0; i < logits.size(); ++i) {
        if (!std::isfinite(logits[i])) continue;
        cumulative += std::exp(double(logits[i] - maxLogit) / double(temperature));
        lastDrawable = int(i);
        if (cumulative > target) return int(i);
    }
    return lastDrawable;  // rounding left target just above the sum
}

DecoderStep GreedyDecoder::update(std::vector<std::vector<int>>& tokens, std::span<const float> logits, int nVocab,
                                  std::vector<float>& sumLogprobs) {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::vector<float> logprobs(static_cast<size_t>(nVocab));
    bool completed = true;
    for (size_t k = 0; k < tokens.size(); ++k) {
        auto row = logits.subspan(k * size_t(nVocab), size_t(nVocab));
        int next = m_temperature == 0.0f ? argmax(row) : sampleIndex(row, m_temperature, uniform(m_rng));
        if (tokens[k].back() == m_eot) {
            next = m_eot;  // a finished row stays finished and adds nothing
        } else {
            logSoftmax(row, logprobs);
            sumLogprobs[k] += logprobs[size_t(next)];
        }
        tokens[k].push_back(next);
        completed = completed && next == m_eot;
    }
    return {completed, {}};
}

std::vector<DecodedCandidate> GreedyDecoder::finalize(const std::vector<std::vector<int>>& tokens,
                                                      const std::vector<float>& sumLogprobs) {
    std::vector<DecodedCandidate> candidates;
    for (size_t k = 0; k < tokens.size(); ++k) {
        DecodedCandidate c{tokens[k], double(sumLogprobs[k])};
        c.tokens.push_back(m_eot);  // every sequence ends with at least one EOT
        candidates.push_back(std::move(c));
    }
    return candidates;
}

} // namespace hearsay
