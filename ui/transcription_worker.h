// The worker that owns the engine (core/engine: model, tokenizer, backend, weights) and its
// session on its thread: Qt glue around Engine and ControlledSession. The GUI talks to it with
// queued slot calls and reads nothing of it but its queued signals; the request*() functions are
// the exceptions, safe from any thread, so that Cancel and the cache switches take effect while a
// transcription is running.
#pragma once

#include "core/backend/backend.h"
#include "core/engine/engine.h"
#include "ui/engine_settings.h"
#include "ui/worker_messages.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

namespace hearsay::ui {

class TranscriptionWorker : public QObject {
    Q_OBJECT
public:
    explicit TranscriptionWorker(QObject* parent = nullptr);
    ~TranscriptionWorker() override;

    // Thread-safe. Ends the running transcription at its next decoder step.
    void requestCancel();
    // Thread-safe. Called before queueing a job, so that a Cancel pressed while it waits counts.
    void clearCancel();
    // Thread-safe (the GUI polls it while the worker runs): total and free memory where the
    // current backend allocates; unknown before a backend exists.
    DeviceMemory deviceMemory() const;
    // Thread-safe. Applied at the next decoder step of a running transcription, or at once
    // when idle (the caller also queues applySettings() so that the panel is told).
    void requestCacheSwitches(bool selfCache, bool crossCache);
    // The decode step graphs switch, likewise at the next decoder step (thread-safe).
    void requestStepGraphs(bool enabled);

public slots:
    // Loads a model (HF checkpoint directory or ggml .bin) and prepares a session for it.
    void loadModel(const QString& path, const hearsay::ui::EngineSettings& settings);
    // Decodes an audio file and transcribes it window by window, from `startSeconds` on (a job
    // continued after a failure; the segments' times stay those of the whole file).
    void transcribeFile(const QString& path, const hearsay::ui::EngineSettings& settings, double startSeconds = 0.0);
    // Rebuilds what the settings need and applies the cache switches; reports the new state. A
    // backend or precision change makes a new Engine (the weights are uploaded to the new
    // backend); a beam size change only a new session over the same weights; threads apply to
    // the backend in place.
    void applySettings(const hearsay::ui::EngineSettings& settings);

signals:
    void modelLoading(const QString& path);
    void modelLoaded(const hearsay::ui::ModelSummary& model);
    // `backendFailed`: see transcriptionFailed.
    void modelFailed(const QString& message, bool backendFailed);

    void transcriptionStarted(const hearsay::ui::AudioSummary& audio);
    void progressChanged(double fraction);
    void segmentsReady(const hearsay::ui::SegmentList& segments);
    void transcriptionFinished(const hearsay::Transcript& transcript);
    // An error, or a cancel when `cancelled`; segments already sent stay valid. `backendFailed`:
    // the chosen backend could not be used (it did not start, ran out of memory, or failed on
    // the GPU), so the CPU backend may do the job.
    void transcriptionFailed(const QString& message, bool cancelled, bool backendFailed);

    void metricsUpdated(const hearsay::ui::EngineMetrics& metrics);
    // A problem outside a transcription (settings that cannot be applied); `backendFailed` as above.
    void warning(const QString& message, bool backendFailed);

private:
    struct Failure {
        QString message;
        bool backend = false;  // the backend (not the CPU) could not start or hold the session
    };
    // Engine and session for these settings, created or rebuilt as needed; what failed, if anything.
    std::optional<Failure> prepareSession(const EngineSettings& settings);
    // True when failures of the engine are the backend's own (anything but the CPU).
    bool onAccelerator() const;
    EngineMetrics metrics() const;
    void setMemoryBackend(std::shared_ptr<Backend> backend);

    std::shared_ptr<SessionControls> m_controls;  // shared by every session the worker makes
    std::shared_ptr<const WhisperModel> m_model;  // the loaded model (kept when an engine rebuild fails)
    std::shared_ptr<const Tokenizer> m_tokenizer;
    std::optional<Engine> m_engine;               // m_model on the backend the settings chose
    mutable std::mutex m_memoryMutex;             // guards m_memoryBackend, read by deviceMemory() from the GUI
    std::shared_ptr<Backend> m_memoryBackend;     // the latest backend made
    QString m_backendChoice;                      // the settings' backend m_engine was made for
    QString m_precisionChoice;                    // and the settings' precision
    std::unique_ptr<ControlledSession> m_session;
    bool m_running = false;
    double m_runAudioSeconds = 0.0;        // audio done in the current run
    double m_runWallSeconds = 0.0;
    std::chrono::steady_clock::time_point m_runStart{};
};

} // namespace hearsay::ui
