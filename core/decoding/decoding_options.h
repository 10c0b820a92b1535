// The options of one 30-second window's decoding (OpenAI's DecodingOptions): task, language,
// temperature, beam search or best-of-N sampling, prompt, suppression and timestamp settings.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {

enum class DecodingTaskKind { Transcribe, Translate };

// Whose beam search rules: OpenAI's reference (each beam proposes beam+1 continuations; every
// end-of-text ranked above the last surviving beam finishes) or CTranslate2's, as faster-whisper
// runs it (the 2·beam best continuations over all beams; only an end-of-text among the first
// `beam` finishes). They choose differently when hypotheses end close together.
enum class BeamSearchRules { OpenAI, CTranslate2 };

struct DecodingOptions {
    DecodingTaskKind task = DecodingTaskKind::Transcribe;
    std::string language;              // language code ("en"); empty: detect (multilingual models)
    std::vector<std::string> detectAmong;  // when detecting: the languages to choose from (empty: all)

    float temperature = 0.0f;          // 0: argmax (or beam search); > 0: sampling
    int sampleLen = 0;                 // maximum sampled tokens; 0: n_text_ctx / 2 (224)
    int bestOf = 0;                    // independent samples when temperature > 0; 0: one
    int beamSize = 0;                  // beams when temperature == 0; 0: greedy
    float patience = 0.0f;             // beam-search patience; 0: 1.0 (the reference's None)
    std::optional<float> lengthPenalty; // alpha of Google NMT's penalty; none: length normalisation
    BeamSearchRules beamRules = BeamSearchRules::OpenAI;

    std::vector<int> prompt;           // previous-context tokens (<|startofprev|> ...), most recent last
    std::vector<int> prefix;           // tokens forced at the start of the sampled text
    // The prefix is output already decided (streaming forces a window's committed tokens, with
    // their timestamps): the timestamp rules read it as sampled history (pairs, non-decreasing
    // times) and the first-step rules (suppress blank, initial timestamp) do not apply. The
    // result's tokens are still only those sampled after it.
    bool prefixIsSampled = false;

    bool suppressBlank = true;         // no " " or EOT as the first sampled token
    std::vector<int> suppressTokens = {-1}; // -1 stands for the tokenizer's non-speech symbols

    bool withoutTimestamps = false;    // add <|notimestamps|> and sample text only
    std::optional<float> maxInitialTimestamp = 1.0f; // seconds; none: no limit

    uint64_t seed = 0;                 // sampling RNG seed (reproducible draws at temperature > 0)
};

// The reference's option checks (beam size with best-of, best-of at temperature 0, ...), as errors.
Result<void> validateDecodingOptions(const DecodingOptions& options);

} // namespace hearsay
