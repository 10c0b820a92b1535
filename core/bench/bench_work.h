// The benchmark's fixed work, the same as whisper.cpp's bench so the numbers compare: one
// encoder pass over a 30 s window, single-token decode steps, batched (beam) steps and prompt
// runs; plus the decode lengths of the cache table and how longer ones chain windows.
#pragma once

#include "core/model/whisper_config.h"

#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

struct FixedWork {
    int warmup = 1;          // untimed runs of every part before the timed ones
    int repeats = 3;         // timed runs of every part; reports give the median
    int decodeSteps = 256;   // single-token steps; before step i the cache holds i positions (0..255)
    int batchSteps = 64;     // steps that add one token to each of batchBeams beams
    int batchBeams = 5;
    int promptTokens = 256;  // a prompt of this many tokens, run in one decode() call ...
    int promptRuns = 16;     // ... this many times, the decoder reset before each

    // Every count positive, beams within maxBeams, sequences within the model's n_text_ctx.
    // The error names the offending field.
    std::string check(const WhisperConfig& config, int maxBeams) const;
};

// Token sequences the benchmark feeds the decoder: the start-of-transcript sequence of the
// model (<|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>, or the English-only
// form) followed by ordinary text tokens. `variant` makes beams differ after the prefix.
// Timing does not depend on the ids; they are valid for the model's vocabulary.
std::vector<int> startOfTranscript(const WhisperConfig& config);
std::vector<int> benchTokenSequence(const WhisperConfig& config, int length, int variant = 0);

// The cache switches of one row of the cache table.
enum class CacheMode { Both, SelfOnly, CrossOnly, None };
std::string_view cacheModeName(CacheMode mode);      // "both", "self", "cross", "none"
bool parseCacheMode(std::string_view text, CacheMode& mode);
inline bool usesSelfCache(CacheMode m) { return m == CacheMode::Both || m == CacheMode::SelfOnly; }
inline bool usesCrossCache(CacheMode m) { return m == CacheMode::Both || m == CacheMode::CrossOnly; }
constexpr CacheMode kAllCacheModes[] = {CacheMode::Both, CacheMode::SelfOnly, CacheMode::CrossOnly, CacheMode::None};

// One 30 s window of a decode-length plan. Positions = prompt + SOT sequence + sampled ≤ n_text_ctx.
struct WindowPlan {
    int promptTokens = 0;    // <|startofprev|> + previous text (0 in the first window)
    int sotTokens = 0;       // the start-of-transcript sequence
    int sampledTokens = 0;   // tokens decoded one per step
};

// How `length` decoded tokens are produced. One window samples at most n_text_ctx/2 tokens (the
// reference's sample_len). Longer lengths chain windows as transcription does: each further
// window is encoded again and conditioned on <|startofprev|> + the text decoded so far, capped
// at its last n_text_ctx/2 − 1 tokens (the reference's prompt cap), and samples what still fits in
// n_text_ctx. Empty when length < 1.
std::vector<WindowPlan> planDecodeLength(const WhisperConfig& config, int length);

} // namespace hearsay
