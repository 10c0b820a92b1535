// The checks of a live transcription's settings (see streaming_options.h): the same for the CLI,
// the GUI and the benchmark, before a session is made.
#include "core/streaming/streaming_options.h"

#include "core/engine/transcription_request.h"

namespace hearsay {

Result<void> StreamingOptions::validate() const {
    if (!(stepSeconds >= TranscriptionRequest::kMinStepSeconds && stepSeconds <= TranscriptionRequest::kMaxStepSeconds))
        return makeError(TranscriptionRequest::stepRangeError());
    if (!(maxWindowSeconds > stepSeconds && maxWindowSeconds <= 29.0)) {
        return makeError("the longest window must be longer than a step and at most 29 s");
    }
    if (!(trimSeconds > 0.0 && trimSeconds <= maxWindowSeconds)) return makeError("the trim length must be in (0, longest window]");
    if (!(minWindowSeconds >= 0.0 && minWindowSeconds < maxWindowSeconds)) return makeError("invalid shortest window");
    if (!(silenceKeepSeconds >= 0.0 && silenceKeepSeconds < 10.0)) return makeError("invalid silence to keep");
    if (temperatures.empty()) return makeError("at least one decoding temperature is needed");
    if (maxSampledTokens < 1 || maxSampledTokens > 224) return makeError("tokens per step must be in 1..224");
    if (commit == CommitPolicy::AlignAtt && !wordTimings) return makeError("the AlignAtt commit policy needs word timings");
    if (!(alignAttGuardSeconds >= 0.0 && alignAttGuardSeconds < 10.0)) return makeError("the AlignAtt guard must be in [0, 10) s");
    if (!(audioContextPaddingSeconds < 30.0)) return makeError("the audio context padding must be under 30 s");
    if (auto ok = vad.validate(); !ok) return ok;
    return validateDecodingOptions(decoding);
}

} // namespace hearsay
