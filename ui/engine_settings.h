// The user's engine and decoding choices (the settings panel), persisted with QSettings.
#pragma once

#include "core/engine/transcription_request.h"

#include <QMetaType>
#include <QString>

class QSettings;

namespace hearsay::ui {

struct EngineSettings {
    QString backend = "auto";   // "auto", "cpu" or "cuda" (parseBackendKind)
    int threads = 0;            // CPU threads; 0 = all cores
    QString language;           // language code; empty = detect on the first 30 s
    QString detectAmong;        // when detecting: "en, de, fr" (codes or names); empty = every language
    bool translate = false;     // task: translate to English instead of transcribe
    int beamSize = 5;           // 1 = greedy
    bool temperatureFallback = true;  // files: a doubtful window is decoded again at higher temperatures
    bool selfCache = true;      // self-attention K/V cache
    bool crossCache = true;     // cross-attention K/V cache
    QString initialPrompt;      // text prompt for the first window
    QString precision = "fp16"; // "fp16" or "fp32" (parsePrecision): CUDA weights and GEMMs; the CPU is float32
    bool stepGraphs = true;     // record the decoder step once per shape and replay it per token
    bool wordTimestamps = false; // segments carry their words' times (View › Word timings; not saved here)
    // Dictation.
    QString inputDevice;        // InputDeviceInfo::id(); empty = the default input
    double stepSeconds = 1.0;   // a streaming step per this much new audio
    double vadThreshold = 0.5;  // speech probability from which the voice activity detector hears speech
    QString commit = "agreement";  // when text becomes final: commitPolicyName() of the streaming session
    QString vocabulary;         // words and names, one a line: always in the dictation's prompt
    QString replacements;       // rules applied to committed dictated text (core/transcript/replacement_rules.h)
    bool spokenCommands = false;  // "comma", "new line" … said aloud become the characters
    bool showTentative = true;  // show text before it is committed (grey, italic)

    static constexpr int kMaxBeamSize = TranscriptionRequest::kMaxBeamSize;
    static constexpr int kBestOf = 5;  // samples per fallback temperature, as the reference
    static constexpr double kTemperatureIncrement = 0.2;  // the reference's fallback temperatures 0.2 … 1.0

    // The engine request these settings make (language, the list to detect among, task, beams,
    // step); the worker validates it against the model.
    TranscriptionRequest request() const;
    // Beams the session must hold: beam search at temperature 0, best-of at fallback temperatures.
    int sessionBeams() const { return request().sessionBeams(); }

    bool operator==(const EngineSettings&) const = default;

    // Missing or out-of-range values fall back to the defaults above.
    static EngineSettings load(const QSettings& settings);
    void save(QSettings& settings) const;
};

} // namespace hearsay::ui

Q_DECLARE_METATYPE(hearsay::ui::EngineSettings)
