// Temperature schedule, fallback and silence decisions (whisper/transcribe.py).
#include "core/decoding/fallback_policy.h"

namespace hearsay {

std::vector<float> fallbackTemperatures(float start, float increment) {
    std::vector<float> result;
    if (!(increment > 0.0f)) return {start};
    // numpy.arange: count = ceil((stop - start) / step), values start + i * step, in double.
    const double stop = 1.0 + 1e-6;
    for (int i = 0;; ++i) {
        const double t = double(start) + double(i) * double(increment);
        if (t >= stop) break;
        result.push_back(float(t));
    }
    if (result.empty()) result.push_back(start);
    return result;
}

bool needsFallback(const DecodingResult& result, const FallbackThresholds& thresholds) {
    bool fallback = false;
    if (thresholds.compressionRatio && result.compressionRatio > *thresholds.compressionRatio) fallback = true;
    if (thresholds.logprob && result.avgLogprob < *thresholds.logprob) fallback = true;
    if (thresholds.noSpeech && result.noSpeechProb > *thresholds.noSpeech && thresholds.logprob &&
        result.avgLogprob < *thresholds.logprob)
        fallback = false;  // silence
    return fallback;
}

bool isSilentWindow(const DecodingResult& result, const FallbackThresholds& thresholds) {
    if (!thresholds.noSpeech) return false;
    bool skip = result.noSpeechProb > *thresholds.noSpeech;
    if (thresholds.logprob && result.avgLogprob > *thresholds.logprob) skip = false;
    return skip;
}

} // namespace hearsay
