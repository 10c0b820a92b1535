// Consistency checks of DecodingOptions, with the reference's rules and readable messages.
#include "core/decoding/decoding_options.h"

namespace hearsay {

Result<void> validateDecodingOptions(const DecodingOptions& options) {
    if (options.beamSize < 0) return makeError("beam size must be positive, got " + std::to_string(options.beamSize));
    if (options.bestOf < 0) return makeError("best-of must be positive, got " + std::to_string(options.bestOf));
    if (options.beamSize > 0 && options.bestOf > 0) return makeError("beam size and best-of cannot be given together");
    if (options.temperature < 0.0f) return makeError("temperature must not be negative");
    if (options.temperature == 0.0f && options.bestOf > 0)
        return makeError("best-of with greedy decoding (temperature 0) is not compatible");
    if (options.patience < 0.0f) return makeError("patience must not be negative");
    if (options.patience > 0.0f && options.beamSize == 0) return makeError("patience requires a beam size");
    if (options.lengthPenalty && !(*options.lengthPenalty >= 0.0f && *options.lengthPenalty <= 1.0f))
        return makeError("length penalty (alpha) must be between 0 and 1");
    if (options.sampleLen < 0) return makeError("sample length must not be negative");
    return {};
}

} // namespace hearsay
