// The logit filters of the reference decoder (whisper/decoding.py), one sequence at a time.
#include "core/decoding/logit_filters.h"

#include "core/decoding/log_softmax.h"

#include <algorithm>
#include <limits>

namespace hearsay {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void suppressRange(std::span<float> logits, int begin, int end) {
    begin = std::clamp(begin, 0, int(logits.size()));
    end = std::clamp(end, 0, int(logits.size()));
    for (int i = begin; i < end; ++i) logits[size_t(i)] = kNegInf;
}

void suppressOne(std::span<float> logits, int id) {
    if (id >= 0 && size_t(id) < logits.size()) logits[size_t(id)] = kNegInf;
}

} // namespace

void SuppressBlank::apply(std::span<float> logits, const std::vector<int>& tokens) const {
    if (int(tokens.size()) != m_sampleBegin) return;
    for (int id : m_blankTokens) suppressOne(logits, id);
    suppressOne(logits, m_eot);
}

void SuppressTokens::apply(std::span<float> logits, const std::vector<int>&) const {
    for (int id : m_tokens) suppressOne(logits, id);
}

void ApplyTimestampRules::apply(std::span<float> logits, const std::vector<int>& tokens) const {
    const int nVocab = int(logits.size());
    const int tb = m_special.timestampBegin;
    suppressOne(logits, m_special.noTimestamps);

    // Timestamps come in pairs, except directly before EOT.
    const int sampled = std::max(0, int(tokens.size()) - m_sampleBegin);
    const bool lastWasTimestamp = sampled >= 1 && tokens.back() >= tb;
    const bool penultimateWasTimestamp = sampled < 2 || tokens[tokens.size() - 2] >= tb;
    if (lastWasTimestamp) {
        if (penultimateWasTimestamp)
            suppressRange(logits, tb, nVocab);         // has to be text (or EOT)
        else
            suppressRange(logits, 0, m_special.eot);   // has to be a timestamp or EOT
    }

    // Timestamps never decrease, and a closed segment has nonzero length.
    int lastTimestamp = -1;
    for (int i = m_sampleBegin; i < int(tokens.size()); ++i)
        if (tokens[size_t(i)] >= tb) lastTimestamp = tokens[size_t(i)];
    if (lastTimestamp >= 0) {
        const int firstAllowed = (lastWasTimestamp && !penultimateWasTimestamp) ? lastTimestamp : lastTimestamp + 1;
        suppressRange(logits, tb, firstAllowed);
    }

    if (int(tokens.size()) == m_sampleBegin) {
        suppressRange(logits, 0, tb);  // the first sampled token is a timestamp
        if (m_maxInitialTimestampIndex) suppressRange(logits, tb + *m_maxInitialTimestampIndex + 1, nVocab);
    }

    // Force a timestamp when their summed probability beats every single text token.
    if (tb >= nVocab) return;
    std::vector<float> logprobs(logits.size());
    logSoftmax(logits, logprobs);
    const float timestampLogprob = logSumExp(std::span<const float>(logprobs).subspan(size_t(tb)));
    const float maxTextLogprob = *std::max_element(logprobs.begin(), logprobs.begin() + tb);
    if (timestampLogprob > maxTextLogprob) suppressRange(logits, 0, tb);
}

std::vector<int> resolveSuppressTokens(const std::vector<int>& requested, const std::vector<int>& nonSpeech,
                                       const SpecialTokens& special, int nVocab) {
    std::vector<int> result;
    const bool expand = std::find(requested.begin(), requested.end(), -1) != requested.end();
    for (int id : requested)
        if (id >= 0) result.push_back(id);
    if (expand) result.insert(result.end(), nonSpeech.begin(), nonSpeech.end());
    for (int id : {special.transcribe, special.translate, special.sot, special.startOfPrev, special.startOfLm,
                   special.noSpeech})
        result.push_back(id);
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    result.erase(std::remove_if(result.begin(), result.end(), [&](int id) { return id < 0 || id >= nVocab; }),
                 result.end());
    return result;
}

} // namespace hearsay
