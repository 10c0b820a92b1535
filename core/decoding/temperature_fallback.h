// Temperature fallback: decode a window at 0.0, and again at higher temperatures while the result
// looks like a failure (too repetitive by gzip ratio, or too improbable), unless it is silence.
#pragma once

#include "core/decoding/fallback_policy.h"

#include <optional>
#include <vector>

namespace hearsay {

// Decodes the session's current window at each temperature until one passes. At temperature > 0
// beam search and patience are dropped (best-of applies); at 0 best-of is dropped. attempts, when
// given, receives the number of decodes run.
Result<DecodingResult> decodeWithFallback(InferenceSession& session, const Tokenizer& tokenizer,
                                          const DecodingOptions& options, const std::vector<float>& temperatures,
                                          const FallbackThresholds& thresholds, int* attempts = nullptr);

} // namespace hearsay
