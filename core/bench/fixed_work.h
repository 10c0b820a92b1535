// Runs the benchmark's fixed work (see bench_work.h) on an inference session and keeps the
// books: timings per part (median of the repeats) and what was actually done, so a test can
// check that the work claimed is the work performed.
#pragma once

#include "core/bench/bench_work.h"
#include "core/frontend/log_mel.h"
#include "core/nn/inference_session.h"
#include <nlohmann/json_fwd.hpp>
#include "core/util/result.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace hearsay {

// Timed samples of one figure, one per repeat.
struct Samples {
    std::vector<double> values;
    double median() const;   // 0 when empty
    double minimum() const;  // 0 when empty
};

// What the session did during one timed repeat, as it reports it itself.
struct FixedWorkCounts {
    int encodeCalls = 0;             // all repeats, warm-up included
    int decodeCalls = 0;             // all repeats, warm-up included
    int singleSteps = 0;             // decode() calls in one single-token run
    int singlePositionsReached = 0;  // cacheStats().positions after it (n with the self cache on)
    int64_t singleTokensRun = 0;     // timings().tokensDecoded during it (n with the self cache on)
    int batchSteps = 0;              // decode() calls in one batched run
    int batchBeamsReached = 0;       // cacheStats().beams after it
    int batchPositionsReached = 0;   // cacheStats().positions after it
    int64_t batchTokensRun = 0;      // positions run during it (steps × beams with the cache on)
    int promptRuns = 0;              // decode() calls of the prompt part
    int promptPositionsReached = 0;  // cacheStats().positions after one prompt run
    int64_t promptTokensRun = 0;     // positions run during all prompt runs of one repeat
};

struct FixedWorkResult {
    Samples encoderMs;         // one 30 s window: encoder + cross-attention K/V projection
    Samples decodeMsPerToken;  // single-token steps, cache holding 0 … decodeSteps−1 positions
    Samples batchMsPerToken;   // per token of batchBeams-token steps
    Samples promptMsPerToken;  // per token of a promptTokens-token prompt
    FixedWorkCounts counts;    // from the last timed repeat (warm-up and repeats do the same work)
    // Bytes per second the besideDecode probe read right after each timed run's single-token
    // steps; empty when no probe was given.
    Samples probeBytesPerSecond;
};

// Where one single-token decode step's time goes, op by op (Backend::setOpProfiling): the
// fixed work's decodeSteps steps once more, untimed by the figures above, after it.
struct DecodeProfile {
    int steps = 0;
    double msPerToken = 0.0;   // the profiled pass's own time per step (timing each op included)
    std::vector<OpTime> ops;   // summed over the steps, longest first; empty: the backend does not time ops
};

// Where one encoder run's time goes (the window's encoder and its cross-attention K/V
// projection), op by op: one more encode of the fixed work's window, after it.
struct EncoderProfile {
    double ms = 0.0;           // the profiled run's own time (timing each op included)
    std::vector<OpTime> ops;   // longest first; empty: the backend does not time ops
};

// Encodes `mel` (a [n_mels][3000] window) and runs the parts in order, warm-up runs first.
// The session must have its caches as the caller wants them and room for work.batchBeams beams.
// `besideDecode`, when given, runs right after each timed run's single-token steps and returns
// the memory bandwidth it measured (bytes per second), so that the decode's floor can be read
// against the bandwidth of the same minutes (roofline.h, ReadProbe).
Result<FixedWorkResult> runFixedWork(InferenceSession& session, const LogMel& mel, const FixedWork& work,
                                     const std::function<double()>& besideDecode = {});
// The single-token steps of `work` again, with the backend timing each op. The session must
// hold an encoded window (after runFixedWork).
Result<DecodeProfile> profileDecodeSteps(InferenceSession& session, Backend& backend, const FixedWork& work);
// `mel` encoded once more with the backend timing each op; the decoder's state is left reset.
Result<EncoderProfile> profileEncoder(InferenceSession& session, Backend& backend, const LogMel& mel);

nlohmann::json toJson(const FixedWork& work);
nlohmann::json toJson(const Samples& samples);  // {"median", "min", "samples"}
nlohmann::json toJson(const FixedWorkResult& result);
nlohmann::json toJson(const DecodeProfile& profile);
nlohmann::json toJson(const EncoderProfile& profile);

} // namespace hearsay
