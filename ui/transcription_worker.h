// The worker that owns the engine host (core/engine/engine_host.h: model, tokenizer, backend,
// threads, weights) and its sessions on its thread: Qt glue around EngineHost, ControlledSession
// and StreamingSession. The GUI
// talks to it only through queued signals connected to its slots, and reads nothing of it but its
// queued signals. What must reach a job that is running (Cancel, the cache switches) goes through
// the worker's EngineControls (controls()), whose request methods are the GUI's only way into the
// sessions' state; a dictation's Stop through the DictationControl of its request.
#pragma once

#include "core/backend/backend.h"
#include "core/engine/engine.h"
#include "core/engine/engine_host.h"
#include "ui/engine_controls.h"
#include "ui/engine_settings.h"
#include "ui/worker_messages.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

namespace hearsay::ui {

class TranscriptionWorker : public QObject {
    Q_OBJECT
public:
    explicit TranscriptionWorker(QObject* parent = nullptr);
    ~TranscriptionWorker() override;

    // Cancel and the switches for the GUI (see engine_controls.h); take it before the worker
    // moves to its thread. Every session the worker makes reads them at its next encoder run or
    // decoder step.
    const std::shared_ptr<EngineControls>& controls() const { return m_controls; }

public slots:
    // Loads a model (HF checkpoint directory or ggml .bin) and prepares a session for it.
    void loadModel(const QString& path, const hearsay::ui::EngineSettings& settings);
    // Decodes an audio file and transcribes it window by window, from `startSeconds` on (a job
    // continued after a failure; the segments' times stay those of the whole file). `ticket`:
    // EngineControls::newJob(), which the GUI's Cancel stops.
    void transcribeFile(const QString& path, const hearsay::ui::EngineSettings& settings, double startSeconds = 0.0,
                        quint64 ticket = 0);
    // Rebuilds what the settings need and applies the cache switches; reports the new state. A
    // backend or precision change uploads the weights to a new backend (EngineHost::apply: the
    // old state stays when that fails); a beam size change only makes a new session over the
    // same weights; threads apply to the backend in place.
    void applySettings(const hearsay::ui::EngineSettings& settings);
    // Lists PortAudio's input devices (answers inputDevicesListed).
    void listInputDevices();
    // Live dictation: opens the request's source (a microphone, or a file at real-time pace),
    // runs a StreamingSession on this thread until the source ends or the request's control says
    // stop, then drains. Committed text is written to the journal at `journal` (when not empty)
    // before it is reported. Reports dictationStarted, tentative/committed/step as they come, the
    // input level every 50 ms, and dictationFinished (or dictationFailed when it cannot start).
    void startDictation(const hearsay::ui::DictationRequest& request, const hearsay::ui::EngineSettings& settings,
                        const QString& journal);
    // Answers deviceMemoryRead with the memory of the current backend (unknown before one exists).
    void readDeviceMemory();

signals:
    void modelLoading(const QString& path);
    void modelLoaded(const hearsay::ui::ModelSummary& model);
    void modelFailed(const hearsay::ui::EngineFailure& failure);

    void transcriptionStarted(const hearsay::ui::AudioSummary& audio);
    void progressChanged(double fraction);
    void segmentsReady(const hearsay::ui::SegmentList& segments);
    void transcriptionFinished(const hearsay::Transcript& transcript);
    // An error, or a cancel (kind Cancelled); segments already sent stay valid. The failure's
    // kind and backend say whether the CPU backend may do the job (EngineFailure::cpuMayHelp).
    void transcriptionFailed(const hearsay::ui::EngineFailure& failure);

    void metricsUpdated(const hearsay::ui::EngineMetrics& metrics);
    void inputDevicesListed(const hearsay::ui::InputDeviceList& devices, const QString& error);
    void dictationStarted(const hearsay::ui::DictationInfo& info);
    void dictationFailed(const QString& message);
    void tentativeChanged(const hearsay::TentativeText& text);
    void textCommitted(const hearsay::CommittedText& text);
    void dictationStep(const hearsay::StreamingStep& step);
    void inputLevelChanged(const hearsay::InputLevel& level);
    // What the run heard (just before dictationFinished), for playback.
    void dictationAudio(const hearsay::ui::DictationAudio& audio);
    // The run ended (the source ended, Stop drained, or an error: summary.error).
    void dictationFinished(const hearsay::StreamingSummary& summary);
    void deviceMemoryRead(const hearsay::DeviceMemory& memory);

    // A problem outside a transcription (settings that cannot be applied, a journal that cannot
    // be written); its kind and backend as above.
    void warning(const hearsay::ui::EngineFailure& problem);
    // Good news worth a line in the message bar (a journal that caught up).
    void notice(const QString& message);

private:
    using Failure = EngineFailure;
    // The host made to hold what the settings ask for (and `model` when given, read again even
    // at the same path), the cache switches requested; what failed, if anything (the host then
    // holds what it held before).
    std::optional<Failure> prepareEngine(const EngineSettings& settings,
                                         const std::optional<std::filesystem::path>& model = std::nullopt);
    // The same, then the file session for these settings, created or rebuilt as needed.
    std::optional<Failure> prepareSession(const EngineSettings& settings);
    // The file session for these settings over the host's current weights, created or rebuilt
    // as needed (the switches applied).
    std::optional<Failure> makeSession(const EngineSettings& settings);
    // The backend the engine runs on (the CPU before there is one).
    BackendKind backendInUse() const;
    EngineMetrics metrics() const;

    std::shared_ptr<EngineControls> m_controls;   // its SessionControls are read by every session the worker makes
    EngineHost m_host;                            // model, tokenizer, backend, threads and weights
    // File transcription's session; released while a dictation runs its own.
    std::unique_ptr<ControlledSession> m_session;
    bool m_running = false;
    double m_runAudioSeconds = 0.0;        // audio done in the current run
    double m_runWallSeconds = 0.0;
    std::chrono::steady_clock::time_point m_runStart{};
};

} // namespace hearsay::ui
