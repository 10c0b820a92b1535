// One row of the benchmark's cache table: decode a fixed number of tokens (chaining windows
// when longer than one window allows) with a given pair of cache switches, and report time
// per token and the cache bytes. The CLI runs each row in a fresh child process and adds
// that process's peak resident memory.
#pragma once

#include "core/bench/bench_work.h"
#include "core/frontend/log_mel.h"
#include "core/nn/inference_session.h"
#include <nlohmann/json_fwd.hpp>
#include "core/util/result.h"

#include <cstddef>
#include <cstdint>

namespace hearsay {

struct CacheRunResult {
    int length = 0;                 // tokens decoded (sampled), all windows
    CacheMode mode = CacheMode::Both;
    int windows = 0;                // 30 s windows encoded (chained beyond n_text_ctx/2 tokens)
    int decodeCalls = 0;            // one per decoded token
    int64_t positionsRun = 0;       // positions the decoder ran (timings().tokensDecoded), prompts included
    int positionsReached = 0;       // the most positions held by the self cache at a window's end
    double decodeMs = 0.0;          // all decode() calls
    double msPerToken = 0.0;        // decodeMs / length
    double encoderMs = 0.0;         // all encode() calls (once per window, same for every mode)
    size_t selfAllocatedBytes = 0;  // cacheStats() at the end of the longest window
    size_t selfInUseBytes = 0;
    size_t crossAllocatedBytes = 0;
    size_t crossInUseBytes = 0;
    size_t residentAfterLoadBytes = 0;  // filled by the process that ran it: RSS before the work
    size_t peakResidentBytes = 0;       // ... and its peak RSS (VmHWM) after the work
};

// Sets the session's switches for `mode`, warms up (one encode and one decode, untimed), then
// decodes `length` tokens following planDecodeLength(). The session needs one beam.
Result<CacheRunResult> runCacheConfiguration(InferenceSession& session, const LogMel& mel, int length, CacheMode mode);

nlohmann::json toJson(const CacheRunResult& row);
// The inverse of toJson (the parent reads its children's rows); errors name the bad field.
Result<CacheRunResult> cacheRunFromJson(const nlohmann::json& json);

} // namespace hearsay
