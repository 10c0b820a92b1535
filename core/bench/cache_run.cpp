// The cache table's decode loop: per window, encode, then one decode() per token with the
// whole sequence (prompt, start-of-transcript, tokens so far), as greedy decoding does.
#include "core/bench/cache_run.h"
#include "core/util/json_text.h"

#include "core/text/tokenizer.h"
#include "core/util/stopwatch.h"

#include <algorithm>
#include <chrono>

using nlohmann::json;

namespace hearsay {
namespace {

using Clock = std::chrono::steady_clock;

} // namespace

Result<CacheRunResult> runCacheConfiguration(InferenceSession& session, const LogMel& mel, int length, CacheMode mode) {
    const WhisperConfig& config = session.model().config();
    const std::vector<WindowPlan> plan = planDecodeLength(config, length);
    if (plan.empty()) return makeError("bench: decode length " + std::to_string(length) + " is not positive");

    session.setSelfAttentionCache(usesSelfCache(mode));
    session.setCrossAttentionCache(usesCrossCache(mode));

    CacheRunResult row;
    row.length = length;
    row.mode = mode;
    const std::string label = "bench: length " + std::to_string(length) + ", caches " + std::string(cacheModeName(mode));

    // Warm-up: first-touch of buffers and thread start-up stay out of the timings.
    std::vector<float> logits;
    const std::vector<int> sot = startOfTranscript(config);
    if (auto ok = session.encode(mel); !ok) return makeError(label + ": encoder: " + ok.message());
    if (auto ok = session.decode({sot}, logits); !ok) return makeError(label + ": decode: " + ok.message());
    session.resetDecoder();

    // The text decoded so far (forced tokens: a fixed walk through the vocabulary).
    const std::vector<int> text = benchTokenSequence(config, length + int(sot.size()));
    std::vector<int> decoded;
    const int startOfPrev = SpecialTokens::forVocabularySize(config.nVocab).startOfPrev;
    for (const WindowPlan& window : plan) {
        auto start = Clock::now();
        if (auto ok = session.encode(mel); !ok) return makeError(label + ": encoder: " + ok.message());
        row.encoderMs += msSince(start);
        ++row.windows;

        std::vector<int> sequence;
        if (window.promptTokens > 0) {
            sequence.push_back(startOfPrev);
            sequence.insert(sequence.end(), decoded.end() - (window.promptTokens - 1), decoded.end());
        }
        sequence.insert(sequence.end(), sot.begin(), sot.end());
        const int64_t positionsBefore = session.timings().tokensDecoded;
        for (int k = 0; k < window.sampledTokens; ++k) {
            start = Clock::now();
            if (auto ok = session.decode({sequence}, logits); !ok) {
                return makeError(label + ": window " + std::to_string(row.windows) + " token " + std::to_string(k) + ": " +
                                 ok.message());
            }
            row.decodeMs += msSince(start);
            ++row.decodeCalls;
            // The token "sampled" at this step: forced, so every mode does the same work.
            const int token = text[sot.size() + decoded.size()];
            sequence.push_back(token);
            decoded.push_back(token);
        }
        row.positionsRun += session.timings().tokensDecoded - positionsBefore;
        const KvCacheStats stats = session.cacheStats();
        if (stats.positions >= row.positionsReached) {
            row.positionsReached = stats.positions;
            row.selfAllocatedBytes = stats.selfAllocated;
            row.selfInUseBytes = stats.selfInUse;
            row.crossAllocatedBytes = stats.crossAllocated;
            row.crossInUseBytes = stats.crossInUse;
        }
    }
    row.msPerToken = row.decodeMs / length;
    return row;
}

json toJson(const CacheRunResult& r) {
    json j;
    j["length"] = r.length;
    j["mode"] = std::string(cacheModeName(r.mode));
    j["selfCache"] = usesSelfCache(r.mode);
    j["crossCache"] = usesCrossCache(r.mode);
    j["windows"] = r.windows;
    j["decodeCalls"] = r.decodeCalls;
    j["positionsRun"] = r.positionsRun;
    j["positionsReached"] = r.positionsReached;
    j["decodeMs"] = r.decodeMs;
    j["msPerToken"] = r.msPerToken;
    j["encoderMs"] = r.encoderMs;
    j["selfAllocatedBytes"] = r.selfAllocatedBytes;
    j["selfInUseBytes"] = r.selfInUseBytes;
    j["crossAllocatedBytes"] = r.crossAllocatedBytes;
    j["crossInUseBytes"] = r.crossInUseBytes;
    j["residentAfterLoadBytes"] = r.residentAfterLoadBytes;
    j["peakResidentBytes"] = r.peakResidentBytes;
    return j;
}

Result<CacheRunResult> cacheRunFromJson(const json& j) {
    if (!j.is_object()) return makeError("cache run: expected a JSON object");
    auto number = [&](const char* key, double& out) -> Result<void> {
        auto it = j.find(key);
        if (it == j.end() || !it->is_number()) return makeError(std::string("cache run: field '") + key + "' missing or not a number");
        out = it->get<double>();
        return {};
    };
    CacheRunResult r;
    auto mode = j.find("mode");
    const std::string modeName = mode != j.end() && mode->is_string() ? mode->get<std::string>() : std::string();
    if (!parseCacheMode(modeName, r.mode)) {
        return makeError("cache run: field 'mode' is '" + modeName + "', expected both, self, cross or none");
    }
    double v = 0.0;
    struct IntField {
        const char* key;
        int* out;
    };
    for (const IntField& f : {IntField{"length", &r.length}, IntField{"windows", &r.windows},
                              IntField{"decodeCalls", &r.decodeCalls}, IntField{"positionsReached", &r.positionsReached}}) {
        if (auto ok = number(f.key, v); !ok) return ok.error();
        *f.out = int(v);
    }
    struct SizeField {
        const char* key;
        size_t* out;
    };
    for (const SizeField& f : {SizeField{"selfAllocatedBytes", &r.selfAllocatedBytes}, SizeField{"selfInUseBytes", &r.selfInUseBytes},
                               SizeField{"crossAllocatedBytes", &r.crossAllocatedBytes},
                               SizeField{"crossInUseBytes", &r.crossInUseBytes},
                               SizeField{"residentAfterLoadBytes", &r.residentAfterLoadBytes},
                               SizeField{"peakResidentBytes", &r.peakResidentBytes}}) {
        if (auto ok = number(f.key, v); !ok) return ok.error();
        if (v < 0) return makeError(std::string("cache run: field '") + f.key + "' is negative");
        *f.out = size_t(v);
    }
    if (auto ok = number("positionsRun", v); !ok) return ok.error();
    r.positionsRun = int64_t(v);
    for (auto [key, out] : {std::pair{"decodeMs", &r.decodeMs}, std::pair{"msPerToken", &r.msPerToken}, std::pair{"encoderMs", &r.encoderMs}}) {
        if (auto ok = number(key, *out); !ok) return ok.error();
    }
    return r;
}

} // namespace hearsay
