// The value types that travel from the transcription worker to the GUI thread in queued
// signals: what was loaded, what is being transcribed, and the engine's live measurements.
#pragma once

#include "core/audio/capture_device.h"
#include "core/audio/level_meter.h"
#include "core/backend/backend_error.h"
#include "core/model/whisper_config.h"
#include "core/streaming/streaming_events.h"
#include "core/nn/inference_session.h"
#include "core/transcript/transcript.h"

#include <QMetaType>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

namespace hearsay::ui {

// A loaded model, as the window describes it.
struct ModelSummary {
    QString path;
    QString format;             // "Hugging Face checkpoint" or "whisper.cpp ggml"
    WhisperConfig config;
    bool multilingual = false;
    int languageCount = 0;      // entries of whisperLanguages() the model has tokens for
    double weightMiB = 0.0;
};

// An audio file opened for transcription.
struct AudioSummary {
    QString path;
    double durationSeconds = 0.0;
    double startSeconds = 0.0;  // where a continued job starts (0: the whole file)
    QString decoder;            // "libsndfile" or "FFmpeg"
    QString format;
    int sourceRate = 0;
    int sourceChannels = 0;
    std::shared_ptr<const std::vector<float>> samples;  // the whole file, 16 kHz mono (for playback)
};

// The engine's state and counters at one moment (after a window, or periodically while decoding).
struct EngineMetrics {
    QString backend;            // "cpu (OpenBLAS, 2 threads)"; empty before a model is loaded
    BackendKind backendKind = BackendKind::Auto;  // the backend in use (Auto: none yet)
    size_t weightBytes = 0;     // the engine's weights on the backend (0 without an engine)
    size_t weightUploads = 0;   // weight buffers the backend has made (Backend::weightUploads): a new
                                // session (beam size, switches) adds none; a new engine a model's worth
    KvCacheStats cache;         // bytes allocated / in use, per decoder layer
    bool selfCache = true;      // the switches as the session has them now
    bool crossCache = true;
    int maxBeams = 0;           // self-cache rows per layer (beam search and best-of need them)
    QString precision;          // "fp16" or "fp32" as the backend computes (the CPU: fp32); empty without one
    bool stepGraphs = true;     // the session records and replays decoder steps
    bool running = false;       // a transcription is in progress

    // Counters of the current (or last) transcription.
    double lastEncoderMs = 0.0; // encoder + cross K/V projection of the latest window
    double encoderMs = 0.0;     // sum over windows
    int windows = 0;
    double decodeMs = 0.0;      // sum over decoder calls
    int decodeCalls = 0;        // decoder steps (one sampled token per beam)
    int tokensDecoded = 0;      // positions run through the decoder (prompt and re-runs included)
    int stepRecordings = 0;     // decoder steps recorded (once per shape) with step graphs on
    int stepReplays = 0;        // decoder steps that replayed a recording
    double audioSeconds = 0.0;  // audio transcribed so far
    double wallSeconds = 0.0;   // since the transcription began

    double decodeMsPerToken() const { return decodeCalls > 0 ? decodeMs / decodeCalls : 0.0; }
    double tokensPerSecond() const { return decodeMs > 0.0 ? 1000.0 * decodeCalls / decodeMs : 0.0; }
    double realTimeFactor() const { return audioSeconds > 0.0 ? wallSeconds / audioSeconds : 0.0; }
};

// A failure or a problem the worker reports (a model that cannot load, a transcription that
// failed or was cancelled, settings or a journal that cannot be applied): the text to show, its
// kind (core's ErrorKind) and the backend it happened on. The window decides from these (offer
// the CPU backend, say "cancelled"), never from the text.
struct EngineFailure {
    QString message;
    ErrorKind kind = ErrorKind::BadInput;
    BackendKind backend = BackendKind::Cpu;  // where it failed (the one being started, when it did not start)

    bool cancelled() const { return kind == ErrorKind::Cancelled; }
    // The backend's own fault: the CPU backend may do the job (cpuBackendMayHelp).
    bool cpuMayHelp() const { return cpuBackendMayHelp(kind, backend); }
};

using SegmentList = std::vector<Segment>;
using InputDeviceList = std::vector<InputDeviceInfo>;

// Shared by the window and one dictation run: the window sets `stop` (Stop pressed), the worker's
// monitor of the run sees it within a few tens of milliseconds and asks the session to drain.
// Nothing else crosses this way; everything the worker reports comes back in queued signals.
struct DictationControl {
    std::atomic<bool> stop{false};
};

// What a dictation run listens to and how (the settings panel's dictation choices).
struct DictationRequest {
    QString device;        // InputDeviceInfo::id(); empty: the default input
    QString file;          // non-empty: this file played at real-time pace instead of a microphone
    double speed = 1.0;    // the file's pace (1 = real time)
    double stepSeconds = 1.0;
    double vadThreshold = 0.5;
    QString commit = "agreement";  // commitPolicyName() of the streaming session
    QString vocabulary;            // one word or name a line
    QString replacements;          // replacement rules, one a line
    bool spokenCommands = false;   // spoken punctuation and new lines become characters
    bool showTentative = true;
    std::shared_ptr<DictationControl> control;
    quint64 ticket = 0;            // EngineControls::newJob(): the window's Cancel (closing) reaches the run
};

// The audio a dictation run heard, sample for sample (its committed words' times are seconds of
// it), for playback; the first `maxSeconds` of a longer run.
struct DictationAudio {
    std::shared_ptr<const std::vector<float>> samples;
    bool truncated = false;
};

// A dictation run as it starts: what it listens to.
struct DictationInfo {
    QString source;        // "ALSA: pulse, 44100 Hz, 2 ch" or "file jfk.wav at 1x"
};

} // namespace hearsay::ui

Q_DECLARE_METATYPE(hearsay::ui::ModelSummary)
Q_DECLARE_METATYPE(hearsay::ui::AudioSummary)
Q_DECLARE_METATYPE(hearsay::ui::EngineMetrics)
Q_DECLARE_METATYPE(hearsay::ui::EngineFailure)
Q_DECLARE_METATYPE(hearsay::ui::SegmentList)
Q_DECLARE_METATYPE(hearsay::Transcript)
Q_DECLARE_METATYPE(hearsay::ui::InputDeviceList)
Q_DECLARE_METATYPE(hearsay::ui::DictationRequest)
Q_DECLARE_METATYPE(hearsay::ui::DictationInfo)
Q_DECLARE_METATYPE(hearsay::ui::DictationAudio)
Q_DECLARE_METATYPE(hearsay::TentativeText)
Q_DECLARE_METATYPE(hearsay::CommittedText)
Q_DECLARE_METATYPE(hearsay::StreamingStep)
Q_DECLARE_METATYPE(hearsay::StreamingSummary)
Q_DECLARE_METATYPE(hearsay::InputLevel)
