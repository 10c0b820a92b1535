// The fixed work's checks, token sequences and the window chaining of long decode lengths.
#include "core/bench/bench_work.h"

#include "core/text/tokenizer.h"

#include <algorithm>

namespace hearsay {

std::string FixedWork::check(const WhisperConfig& config, int maxBeams) const {
    struct Field {
        const char* name;
        int value;
    };
    for (const Field& f : {Field{"warmup", warmup + 1}, Field{"repeats", repeats}, Field{"decode steps", decodeSteps},
                           Field{"batch steps", batchSteps}, Field{"batch beams", batchBeams},
                           Field{"prompt tokens", promptTokens}, Field{"prompt runs", promptRuns}}) {
        if (f.value < 1) return std::string(f.name) + " must be positive";
    }
    if (batchBeams > maxBeams) {
        return "batch beams (" + std::to_string(batchBeams) + ") exceed the session's beams (" + std::to_string(maxBeams) + ")";
    }
    for (const Field& f : {Field{"decode steps", decodeSteps}, Field{"batch steps", batchSteps},
                           Field{"prompt tokens", promptTokens}}) {
        if (f.value > config.nTextCtx) {
            return std::string(f.name) + " (" + std::to_string(f.value) + ") exceed the model's n_text_ctx (" +
                   std::to_string(config.nTextCtx) + ")";
        }
    }
    return {};
}

std::vector<int> startOfTranscript(const WhisperConfig& config) {
    const SpecialTokens ids = SpecialTokens::forVocabularySize(config.nVocab);
    if (config.isMultilingual()) return {ids.sot, ids.firstLanguage, ids.transcribe, ids.noTimestamps};
    return {ids.sot, ids.noTimestamps};
}

std::vector<int> benchTokenSequence(const WhisperConfig& config, int length, int variant) {
    std::vector<int> tokens = startOfTranscript(config);
    tokens.resize(std::min<size_t>(tokens.size(), size_t(std::max(length, 0))));
    const int ordinary = SpecialTokens::forVocabularySize(config.nVocab).eot;  // ordinary ids are below <|endoftext|>
    // A fixed walk through the ordinary vocabulary (a prime stride), offset per variant.
    for (int i = int(tokens.size()); i < length; ++i) {
        tokens.push_back(int((1000L + 7919L * i + 104729L * variant) % (ordinary - 1)) + 1);
    }
    return tokens;
}

std::string_view cacheModeName(CacheMode mode) {
    switch (mode) {
    case CacheMode::Both: return "both";
    case CacheMode::SelfOnly: return "self";
    case CacheMode::CrossOnly: return "cross";
    case CacheMode::None: return "none";
    }
    return "?";
}

bool parseCacheMode(std::string_view text, CacheMode& mode) {
    for (CacheMode m : kAllCacheModes) {
        if (text == cacheModeName(m)) {
            mode = m;
            return true;
        }
    }
    return false;
}

std::vector<WindowPlan> planDecodeLength(const WhisperConfig& config, int length) {
    std::vector<WindowPlan> plan;
    const int sot = int(startOfTranscript(config).size());
    const int sampleCap = config.nTextCtx / 2;
    const int promptCap = config.nTextCtx / 2 - 1;
    int remaining = length;
    int sampledSoFar = 0;
    while (remaining > 0) {
        WindowPlan w;
        w.sotTokens = sot;
        if (!plan.empty()) w.promptTokens = 1 + std::min(sampledSoFar, promptCap);
        const int room = config.nTextCtx - w.promptTokens - w.sotTokens;
        w.sampledTokens = std::min({remaining, sampleCap, room});
        if (w.sampledTokens <= 0) break;  // a model too small to sample anything: stop, never loop
        plan.push_back(w);
        remaining -= w.sampledTokens;
        sampledSoFar += w.sampledTokens;
    }
    return plan;
}

} // namespace hearsay
