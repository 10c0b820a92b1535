// The temperature fallback loop over one encoded window (whisper/transcribe.py decode_with_fallback).
#include "core/decoding/temperature_fallback.h"

namespace hearsay {

Result<DecodingResult> decodeWithFallback(InferenceSession& session, const Tokenizer& tokenizer,
                                          const DecodingOptions& options, const std::vector<float>& temperatures,
                                          const FallbackThresholds& thresholds, int* attempts) {
    std::vector<float> schedule = temperatures.empty() ? std::vector<float>{options.temperature} : temperatures;
    std::optional<DecodingResult> last;
    int runs = 0;
    for (float t : schedule) {
        DecodingOptions attempt = options;
        attempt.temperature = t;
        if (t > 0.0f) {
            attempt.beamSize = 0;
            attempt.patience = 0.0f;
        } else {
            attempt.bestOf = 0;
        }
        attempt.seed = options.seed + uint64_t(runs) * 0x9E3779B97F4A7C15ull;
        auto decoded = decodeWindow(session, tokenizer, attempt);
        ++runs;
        if (!decoded) return decoded.error();
        last = std::move(decoded.value());
        if (!needsFallback(*last, thresholds)) break;
    }
    if (attempts) *attempts = runs;
    return std::move(*last);
}

} // namespace hearsay
