// The fixed work, part by part. Token sequences are built before the clock starts, so the
// timed loops hold only the session's calls.
#include "core/bench/fixed_work.h"
#include "core/util/json_text.h"
#include "core/util/stopwatch.h"

#include <algorithm>
#include <chrono>

using nlohmann::json;

namespace hearsay {
namespace {

using Clock = std::chrono::steady_clock;

// decode() with a context for its error message.
Result<void> decodeStep(InferenceSession& session, const std::vector<std::vector<int>>& beams, std::vector<float>& logits,
                        const char* part, int step) {
    auto ok = session.decode(beams, logits);
    if (!ok) return makeError(std::string("bench: ") + part + " step " + std::to_string(step) + ": " + ok.message());
    return {};
}

// The single-token steps: step i submits the first i + 1 tokens of one sequence.
std::vector<std::vector<std::vector<int>>> singleTokenSteps(const WhisperConfig& config, int count) {
    const std::vector<int> single = benchTokenSequence(config, count);
    std::vector<std::vector<std::vector<int>>> steps(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) steps[size_t(i)] = {std::vector<int>(single.begin(), single.begin() + i + 1)};
    return steps;
}

} // namespace

double Samples::median() const {
    if (values.empty()) return 0.0;
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double Samples::minimum() const { return values.empty() ? 0.0 : *std::min_element(values.begin(), values.end()); }

Result<FixedWorkResult> runFixedWork(InferenceSession& session, const LogMel& mel, const FixedWork& work,
                                     const std::function<double()>& besideDecode) {
    const WhisperConfig& config = session.model().config();
    if (std::string problem = work.check(config, work.batchBeams); !problem.empty()) return makeError("bench: " + problem);

    const auto singleSteps = singleTokenSteps(config, work.decodeSteps);

    // Batched steps: step s submits the first s + 1 tokens of each beam's sequence.
    std::vector<std::vector<int>> beamSequences;
    for (int b = 0; b < work.batchBeams; ++b) beamSequences.push_back(benchTokenSequence(config, work.batchSteps, b));
    std::vector<std::vector<std::vector<int>>> batchSteps(size_t(work.batchSteps));
    for (int s = 0; s < work.batchSteps; ++s) {
        for (const auto& seq : beamSequences) batchSteps[size_t(s)].emplace_back(seq.begin(), seq.begin() + s + 1);
    }
    const std::vector<std::vector<int>> prompt = {benchTokenSequence(config, work.promptTokens)};

    FixedWorkResult result;
    FixedWorkCounts& counts = result.counts;
    std::vector<float> logits;
    for (int run = 0; run < work.warmup + work.repeats; ++run) {
        const bool timed = run >= work.warmup;

        auto start = Clock::now();
        if (auto ok = session.encode(mel); !ok) return makeError("bench: encoder: " + ok.message());
        const double encoderMs = msSince(start);
        ++counts.encodeCalls;

        session.resetDecoder();
        int64_t tokensBefore = session.timings().tokensDecoded;
        start = Clock::now();
        for (int i = 0; i < work.decodeSteps; ++i) {
            if (auto ok = decodeStep(session, singleSteps[size_t(i)], logits, "decode", i); !ok) return ok.error();
        }
        const double singleMs = msSince(start);
        counts.decodeCalls += work.decodeSteps;
        counts.singleSteps = work.decodeSteps;
        counts.singlePositionsReached = session.cacheStats().positions;
        counts.singleTokensRun = session.timings().tokensDecoded - tokensBefore;
        if (timed && besideDecode) result.probeBytesPerSecond.values.push_back(besideDecode());

        session.resetDecoder();
        tokensBefore = session.timings().tokensDecoded;
        start = Clock::now();
        for (int s = 0; s < work.batchSteps; ++s) {
            if (auto ok = decodeStep(session, batchSteps[size_t(s)], logits, "batch", s); !ok) return ok.error();
        }
        const double batchMs = msSince(start);
        counts.decodeCalls += work.batchSteps;
        counts.batchSteps = work.batchSteps;
        const KvCacheStats batchStats = session.cacheStats();
        counts.batchBeamsReached = batchStats.beams;
        counts.batchPositionsReached = batchStats.positions;
        counts.batchTokensRun = session.timings().tokensDecoded - tokensBefore;

        double promptMs = 0.0;
        counts.promptTokensRun = 0;
        for (int r = 0; r < work.promptRuns; ++r) {
            session.resetDecoder();  // untimed: every run processes the whole prompt
            tokensBefore = session.timings().tokensDecoded;
            start = Clock::now();
            if (auto ok = decodeStep(session, prompt, logits, "prompt", r); !ok) return ok.error();
            promptMs += msSince(start);
            counts.promptTokensRun += session.timings().tokensDecoded - tokensBefore;
        }
        counts.decodeCalls += work.promptRuns;
        counts.promptRuns = work.promptRuns;
        counts.promptPositionsReached = session.cacheStats().positions;

        if (timed) {
            result.encoderMs.values.push_back(encoderMs);
            result.decodeMsPerToken.values.push_back(singleMs / work.decodeSteps);
            result.batchMsPerToken.values.push_back(batchMs / (double(work.batchSteps) * work.batchBeams));
            result.promptMsPerToken.values.push_back(promptMs / (double(work.promptRuns) * work.promptTokens));
        }
    }
    return result;
}

Result<DecodeProfile> profileDecodeSteps(InferenceSession& session, Backend& backend, const FixedWork& work) {
    const auto steps = singleTokenSteps(session.model().config(), work.decodeSteps);
    std::vector<float> logits;
    session.resetDecoder();
    backend.takeOpProfile();  // nothing from before
    backend.setOpProfiling(true);
    const auto start = Clock::now();
    for (int i = 0; i < work.decodeSteps; ++i) {
        if (auto ok = decodeStep(session, steps[size_t(i)], logits, "profile", i); !ok) {
            backend.setOpProfiling(false);
            return ok.error();
        }
    }
    const double ms = msSince(start);
    backend.setOpProfiling(false);
    DecodeProfile profile;
    profile.steps = work.decodeSteps;
    profile.msPerToken = ms / work.decodeSteps;
    profile.ops = backend.takeOpProfile();
    return profile;
}

Result<EncoderProfile> profileEncoder(InferenceSession& session, Backend& backend, const LogMel& mel) {
    backend.takeOpProfile();  // nothing from before
    backend.setOpProfiling(true);
    const auto start = Clock::now();
    auto ok = session.encode(mel);
    const double ms = msSince(start);
    backend.setOpProfiling(false);
    if (!ok) return makeError("bench: encoder: " + ok.message());
    session.resetDecoder();
    EncoderProfile profile;
    profile.ms = ms;
    profile.ops = backend.takeOpProfile();
    return profile;
}

namespace {

json opsToJson(const std::vector<OpTime>& ops) {
    json j = json::array();
    for (const OpTime& op : ops) {
        j.push_back({{"op", op.op}, {"calls", op.calls}, {"ms", op.ms}, {"bytes", op.bytes}, {"flops", op.flops}});
    }
    return j;
}

} // namespace

json toJson(const DecodeProfile& p) {
    json j;
    j["steps"] = p.steps;
    j["msPerToken"] = p.msPerToken;
    j["ops"] = opsToJson(p.ops);
    return j;
}

json toJson(const EncoderProfile& p) {
    json j;
    j["ms"] = p.ms;
    j["ops"] = opsToJson(p.ops);
    return j;
}

json toJson(const FixedWork& w) {
    json j;
    j["warmup"] = w.warmup;
    j["repeats"] = w.repeats;
    j["decodeSteps"] = w.decodeSteps;
    j["batchSteps"] = w.batchSteps;
    j["batchBeams"] = w.batchBeams;
    j["promptTokens"] = w.promptTokens;
    j["promptRuns"] = w.promptRuns;
    return j;
}

json toJson(const Samples& s) {
    json j;
    j["median"] = s.median();
    j["min"] = s.minimum();
    j["samples"] = s.values;
    return j;
}

json toJson(const FixedWorkResult& r) {
    json j;
    j["encoderMs"] = toJson(r.encoderMs);
    j["decodeMsPerToken"] = toJson(r.decodeMsPerToken);
    j["batchMsPerToken"] = toJson(r.batchMsPerToken);
    j["promptMsPerToken"] = toJson(r.promptMsPerToken);
    if (!r.probeBytesPerSecond.values.empty()) j["probeBytesPerSecond"] = toJson(r.probeBytesPerSecond);
    const FixedWorkCounts& c = r.counts;
    json counts;
    counts["encodeCalls"] = c.encodeCalls;
    counts["decodeCalls"] = c.decodeCalls;
    counts["singleSteps"] = c.singleSteps;
    counts["singlePositionsReached"] = c.singlePositionsReached;
    counts["singleTokensRun"] = c.singleTokensRun;
    counts["batchSteps"] = c.batchSteps;
    counts["batchBeamsReached"] = c.batchBeamsReached;
    counts["batchPositionsReached"] = c.batchPositionsReached;
    counts["batchTokensRun"] = c.batchTokensRun;
    counts["promptRuns"] = c.promptRuns;
    counts["promptPositionsReached"] = c.promptPositionsReached;
    counts["promptTokensRun"] = c.promptTokensRun;
    j["counts"] = counts;
    return j;
}

} // namespace hearsay
