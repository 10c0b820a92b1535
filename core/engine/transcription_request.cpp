// The checks and the mapping of a transcription request (see transcription_request.h).
#include "core/engine/transcription_request.h"

#include "core/decoding/fallback_policy.h"
#include "core/text/tokenizer.h"

#include <algorithm>
#include <cstdio>

namespace hearsay {

std::string TranscriptionRequest::stepRangeError() {
    char text[96];
    std::snprintf(text, sizeof text, "the streaming step must be between %g and %g s", kMinStepSeconds, kMaxStepSeconds);
    return text;
}

int TranscriptionRequest::sessionBeams() const { return std::max({1, beamSize, temperatureIncrement > 0.0 ? bestOf : 1}); }

Result<ValidatedRequest> TranscriptionRequest::validate(const WhisperConfig& model) const {
    if (beamSize < 1 || beamSize > kMaxBeamSize)
        return makeError("the beam size must be between 1 and " + std::to_string(kMaxBeamSize) + ", got " +
                         std::to_string(beamSize));
    if (bestOf < 0 || bestOf > kMaxBestOf)
        return makeError("best-of must be between 0 and " + std::to_string(kMaxBestOf) + ", got " + std::to_string(bestOf));
    if (!(temperatureIncrement >= 0.0 && temperatureIncrement <= 1.0))
        return makeError("the temperature increment must be between 0 (no fallback) and 1, got " +
                         std::to_string(temperatureIncrement));
    if (!(stepSeconds >= kMinStepSeconds && stepSeconds <= kMaxStepSeconds))
        return makeError(stepRangeError());
    const bool detect = language.empty() || language == "auto";
    if (!detect && !languageIndex(language)) return makeError("unknown language '" + language + "'");
    for (const std::string& code : detectAmong)
        if (!languageIndex(code)) return makeError("unknown language '" + code + "' in the languages to detect among");

    ValidatedRequest out;
    DecodingOptions& d = out.decoding;
    d.task = task;
    if (model.isMultilingual()) {  // English-only models have no language tokens
        if (!detect) d.language = language;
        else d.detectAmong = detectAmong;
    }
    d.beamSize = beamSize > 1 ? beamSize : 0;
    d.bestOf = bestOf;
    out.temperatures = fallbackTemperatures(0.0f, float(temperatureIncrement));
    out.maxBeams = sessionBeams();
    out.stepSeconds = stepSeconds;
    return out;
}

} // namespace hearsay
