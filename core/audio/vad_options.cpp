// VadOptions: the derived negative threshold and the checks a settings panel relies on.
#include "core/audio/vad_options.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hearsay {

double VadOptions::effectiveNegativeThreshold() const {
    return negativeThreshold ? *negativeThreshold : std::max(threshold - 0.15, 0.01);
}

Result<void> VadOptions::validate() const {
    auto inUnit = [](double v) { return v >= 0.0 && v <= 1.0; };  // false for NaN
    if (!inUnit(threshold)) return makeError("VAD threshold must lie in [0, 1], got " + std::to_string(threshold));
    if (negativeThreshold && !inUnit(*negativeThreshold)) {
        return makeError("VAD negative threshold must lie in [0, 1], got " + std::to_string(*negativeThreshold));
    }
    if (negativeThreshold && *negativeThreshold > threshold) {
        return makeError("VAD negative threshold (" + std::to_string(*negativeThreshold) +
                         ") must not exceed the threshold (" + std::to_string(threshold) + ")");
    }
    if (minSilenceMs < 0 || speechPadMs < 0 || minSpeechMs < 0 || minSilenceAtMaxSpeechMs < 0) {
        return makeError("VAD durations must not be negative (min silence " + std::to_string(minSilenceMs) + " ms, padding " +
                         std::to_string(speechPadMs) + " ms, min speech " + std::to_string(minSpeechMs) + " ms)");
    }
    // The package's limit on a segment is max_speech * rate - chunk - 2 * pad samples; it must
    // stay positive or every chunk would be cut.
    const double maxSamples = maxSpeechSeconds * kVadSampleRate - kVadChunkSamples - 2.0 * speechPadMs * kVadSampleRate / 1000.0;
    if (std::isnan(maxSpeechSeconds) || maxSamples <= 0.0) {
        return makeError("VAD max speech duration " + std::to_string(maxSpeechSeconds) +
                         " s is too short: it must exceed one 32 ms chunk plus twice the padding");
    }
    return {};
}

} // namespace hearsay
