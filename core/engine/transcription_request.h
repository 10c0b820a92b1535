// What a user asks of the engine for one transcription (a file, or a live stream), in the user's
// terms, as the CLI's options and the GUI's settings panel both give it; validate() checks it
// against the model and turns it into the engine's decoding options. The one place where the
// beam size becomes greedy or beam search, where an English-only model drops the language, where
// the session's beams are counted and where the ranges of these settings are defined.
#pragma once

#include "core/decoding/decoding_options.h"
#include "core/model/whisper_config.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace hearsay {

// A request that validate() accepted, normalised for the model.
struct ValidatedRequest {
    // task, language (empty on English-only models and when detecting), detectAmong (empty when
    // a language is given), beamSize (0: greedy) and bestOf; the other fields keep their defaults.
    DecodingOptions decoding;
    std::vector<float> temperatures = {0.0f};  // files: temperature 0, then the fallback temperatures
    int maxBeams = 1;        // self-attention cache rows the session needs: beam search and best-of sampling
    double stepSeconds = 1.0;  // a streaming step per this much new audio
};

struct TranscriptionRequest {
    static constexpr int kMaxBeamSize = 16;       // beams of beam search (the CLI's and the panel's range)
    static constexpr int kMaxBestOf = 16;         // samples per fallback temperature
    static constexpr double kMinStepSeconds = 0.05;  // a streaming step's range (StreamingOptions::validate)
    static constexpr double kMaxStepSeconds = 10.0;

    DecodingTaskKind task = DecodingTaskKind::Transcribe;
    std::string language;                   // a language code ("de"); empty or "auto": detected
    std::vector<std::string> detectAmong;   // when detecting: the languages to choose from (empty: all)
    int beamSize = 1;                       // 1: greedy; 2..kMaxBeamSize: beam search at temperature 0
    int bestOf = 5;                         // samples at each fallback temperature above 0 (0: one), as the reference
    // Files: a window whose text fails the reference's checks (repetitive, improbable) is decoded
    // again at temperatures 0 + k·increment up to 1 (OpenAI's 0.2); 0: never (whisper.cpp's
    // --no-fallback), faster on audio the model is unsure of, and no best-of beams to hold.
    double temperatureIncrement = 0.2;
    double stepSeconds = 1.0;               // streaming only: kMinStepSeconds..kMaxStepSeconds

    // The request for `model`, or what is wrong with it. A language on an English-only model is
    // dropped (it has no language tokens; its text is English whatever was asked), as is the
    // list to detect among.
    Result<ValidatedRequest> validate(const WhisperConfig& model) const;

    // Self-attention cache rows a session needs for this request: the beams of beam search, the
    // samples of best-of when there are fallback temperatures (ValidatedRequest::maxBeams).
    int sessionBeams() const;

    // "the streaming step must be between 0.05 and 10 s"
    static std::string stepRangeError();
};

} // namespace hearsay
