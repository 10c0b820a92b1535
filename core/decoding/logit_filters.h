// The reference's logit filters, applied in order to each sequence's next-token logits before a
// token is chosen: SuppressBlank, SuppressTokens and ApplyTimestampRules.
#pragma once

#include "core/text/tokenizer.h"

#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace hearsay {

class LogitFilter {
public:
    virtual ~LogitFilter() = default;
    // logits: [n_vocab] of one sequence, modified in place; tokens: that sequence so far (initial
    // tokens included).
    virtual void apply(std::span<float> logits, const std::vector<int>& tokens) const = 0;
};

// At the first sampled position, forbids the blank (the encoding of " ") and end-of-text.
class SuppressBlank final : public LogitFilter {
public:
    SuppressBlank(std::vector<int> blankTokens, int eot, int sampleBegin)
        : m_blankTokens(std::move(blankTokens)), m_eot(eot), m_sampleBegin(sampleBegin) {}
    void apply(std::span<float> logits, const std::vector<int>& tokens) const override;

private:
    std::vector<int> m_blankTokens;
    int m_eot;
    int m_sampleBegin;
};

// Forbids a fixed set of tokens at every position.
class SuppressTokens final : public LogitFilter {
public:
    explicit SuppressTokens(std::vector<int> tokens) : m_tokens(std::move(tokens)) {}
    void apply(std::span<float> logits, const std::vector<int>& tokens) const override;
    const std::vector<int>& tokens() const { return m_tokens; }

private:
    std::vector<int> m_tokens;
};

// Timestamp grammar: no <|notimestamps|>; timestamps in pairs (except before EOT); never
// decreasing, and a closed segment has nonzero length; the first sampled token is a timestamp
// no later than maxInitialTimestampIndex; when the timestamps' total probability beats every
// single text token, a timestamp is forced.
class ApplyTimestampRules final : public LogitFilter {
public:
    ApplyTimestampRules(const SpecialTokens& special, int sampleBegin, std::optional<int> maxInitialTimestampIndex)
        : m_special(special), m_sampleBegin(sampleBegin), m_maxInitialTimestampIndex(maxInitialTimestampIndex) {}
    void apply(std::span<float> logits, const std::vector<int>& tokens) const override;

private:
    SpecialTokens m_special;
    int m_sampleBegin;
    std::optional<int> m_maxInitialTimestampIndex;
};

// The suppressed set as the reference builds it: requested ids (-1 expands to nonSpeech), plus
// <|transcribe|> <|translate|> <|startoftranscript|> <|startofprev|> <|startoflm|> <|nospeech|>;
// sorted, unique, ids outside [0, nVocab) dropped.
std::vector<int> resolveSuppressTokens(const std::vector<int>& requested, const std::vector<int>& nonSpeech,
                                       const SpecialTokens& special, int nVocab);

} // namespace hearsay
