// The worker that owns the engine: model, tokenizer, backend and session live on its thread.
// The GUI talks to it with queued slot calls and reads nothing of it but its queued signals;
// the two request*() functions are the exceptions, safe from any thread, so that Cancel and
// the cache switches take effect while a transcription is running.
#pragma once

#include "ui/engine_settings.h"
#include "ui/worker_messages.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <memory>
#include <optional>

namespace hearsay {
class Backend;
class Tokenizer;
class WhisperModel;
} // namespace hearsay

namespace hearsay::ui {

class ControlledSession;
struct SessionControls;

class TranscriptionWorker : public QObject {
    Q_OBJECT
public:
    explicit TranscriptionWorker(QObject* parent = nullptr);
    ~TranscriptionWorker() override;

    // Thread-safe. Ends the running transcription at its next decoder step.
    void requestCancel();
    // Thread-safe. Called before queueing a job, so that a Cancel pressed while it waits counts.
    void clearCancel();
    // Thread-safe. Applied at the next decoder step of a running transcription, or at once
    // when idle (the caller also queues applySettings() so that the panel is told).
    void requestCacheSwitches(bool selfCache, bool crossCache);

public slots:
    // Loads a model (HF checkpoint directory or ggml .bin) and prepares a session for it.
    void loadModel(const QString& path, const hearsay::ui::EngineSettings& settings);
    // Decodes an audio file and transcribes it window by window.
    void transcribeFile(const QString& path, const hearsay::ui::EngineSettings& settings);
    // Rebuilds backend or session when the settings need it (backend, threads, beams) and
    // applies the cache switches; reports the new state.
    void applySettings(const hearsay::ui::EngineSettings& settings);

signals:
    void modelLoading(const QString& path);
    void modelLoaded(const hearsay::ui::ModelSummary& model);
    void modelFailed(const QString& message);

    void transcriptionStarted(const hearsay::ui::AudioSummary& audio);
    void progressChanged(double fraction);
    void segmentsReady(const hearsay::ui::SegmentList& segments);
    void transcriptionFinished(const hearsay::Transcript& transcript);
    // An error, or a cancel when `cancelled`; segments already sent stay valid.
    void transcriptionFailed(const QString& message, bool cancelled);

    void metricsUpdated(const hearsay::ui::EngineMetrics& metrics);
    // A problem outside a transcription (settings that cannot be applied).
    void warning(const QString& message);

private:
    // Backend and session for these settings, created or rebuilt as needed; an error message on failure.
    std::optional<QString> prepareSession(const EngineSettings& settings);
    EngineMetrics metrics() const;

    std::shared_ptr<SessionControls> m_controls;
    std::shared_ptr<const WhisperModel> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::shared_ptr<Backend> m_backend;
    QString m_backendChoice;               // the settings' backend the current one was made for
    std::shared_ptr<ControlledSession> m_session;
    bool m_running = false;
    double m_runAudioSeconds = 0.0;        // audio done in the current run
    double m_runWallSeconds = 0.0;
    std::chrono::steady_clock::time_point m_runStart{};
};

} // namespace hearsay::ui
