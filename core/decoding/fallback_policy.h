// The temperature-fallback policy as pure decisions: which temperatures are tried, when a decoded
// window counts as failed (too repetitive, too improbable) and when it counts as silence.
#pragma once

#include "core/decoding/decoding_task.h"

#include <optional>
#include <vector>

namespace hearsay {

struct FallbackThresholds {
    std::optional<double> compressionRatio = 2.4;  // above: too repetitive
    std::optional<double> logprob = -1.0;          // average log-probability below: too improbable
    std::optional<double> noSpeech = 0.6;          // P(no speech) above (with a low log-prob): silence
};

// The temperatures tried, start, start + increment, ... up to 1.0 (numpy.arange(t, 1.0 + 1e-6, inc));
// only start when increment is not positive.
std::vector<float> fallbackTemperatures(float start, float increment);

// Whether a result must be decoded again at the next temperature (silence is never retried).
bool needsFallback(const DecodingResult& result, const FallbackThresholds& thresholds);

// Whether the long-form loop skips the window as silence: no-speech probability above its
// threshold and the average log-probability not above the log-prob threshold.
bool isSilentWindow(const DecodingResult& result, const FallbackThresholds& thresholds);

} // namespace hearsay
