// File jobs between the main window and the engine's worker: loading a model and transcribing a
// file, one at a time. It holds the job's phase, the model that is loaded, the file being
// transcribed and how far it got, and what to do when a job's backend fails: the offer to run it
// again on the CPU (a model load from the start, a file continued from the end of its last
// complete window). It sends the worker its requests, takes its reports, and says what the window
// should paint; the window forwards what the user asked and keeps no job state itself.
#pragma once

#include "ui/engine_settings.h"
#include "ui/message_bar.h"
#include "ui/worker_messages.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QSettings;

namespace hearsay::ui {

class EngineControls;
class TranscriptModel;
class TranscriptionWorker;

class FileJobController : public QObject {
    Q_OBJECT
public:
    enum class Job { None, LoadingModel, Transcribing };
    // The failed job again (run once the backend setting says CPU).
    using Retry = std::function<void()>;

    // `settings`: the window's engine settings, read when a job is queued (a retry gets the
    // settings of its time); `controls`: the worker's, through which Cancel reaches a job; `transcript`: the
    // rows a file's segments follow (and the prompt of a continuation); `stored`: the last model
    // and the folders remembered.
    FileJobController(const EngineSettings& settings, std::shared_ptr<EngineControls> controls,
                      TranscriptModel* transcript, QSettings& stored, QObject* parent = nullptr);

    // Requests to `worker`'s slots (queued) and its reports of model loads and files to this.
    void connectWorker(TranscriptionWorker* worker);

    Job job() const { return m_job; }
    bool hasModel() const { return m_hasModel; }
    const QString& modelPath() const { return m_modelPath; }

    // What the user asked, forwarded by the window while no job or dictation runs.
    void loadModel(const QString& path);
    // The whole file, after the rows on screen (none replaced); an error without a model.
    void transcribe(const QString& path);
    // Stops the file at the engine's next decoder step; false when no file is being transcribed.
    bool cancel();
    // Files from now on are transcribed with word timestamps (View › Word timings).
    void setWordTimestamps(bool on) { m_wordTimestamps = on; }

signals:
    // To the worker.
    void loadModelRequested(const QString& path, const hearsay::ui::EngineSettings& settings);
    void transcribeRequested(const QString& path, const hearsay::ui::EngineSettings& settings, double startSeconds,
                             quint64 ticket);

    // To the window: job() changed; the status line; the message strip (an Error is also the
    // status "Error"); the strip with the CPU backend offered, and `retry` (none: nothing to redo).
    void jobChanged();
    void status(const QString& text);
    void message(hearsay::ui::MessageBar::Kind kind, const QString& text);
    void cpuBackendOffered(hearsay::ui::MessageBar::Kind kind, const QString& text,
                           hearsay::ui::FileJobController::Retry retry);
    // The file's progress: `fraction` of its audio done, or negative while not known yet.
    void progressShown(double fraction, const QString& text);
    void modelLoaded(const hearsay::ui::ModelSummary& model);
    // The file's audio is decoded and its job began (its segments follow).
    void audioOpened(const hearsay::ui::AudioSummary& audio);
    // Segments numbered after the rows kept, to be appended to the transcript.
    void segmentsReady(const hearsay::ui::SegmentList& segments);
    void modelLoadFinished(bool ok);
    void transcriptionEnded(bool ok);

private:
    void setJob(Job job);
    void fail(const QString& text);
    // Queues the transcription of `path` from `startSeconds` on (0: the whole file).
    void startJob(const QString& path, double startSeconds);

    void onModelLoading(const QString& path);
    void onModelLoaded(const ModelSummary& model);
    void onModelFailed(const EngineFailure& failure);
    void onTranscriptionStarted(const AudioSummary& audio);
    void onProgress(double fraction);
    void onSegments(const SegmentList& segments);
    void onTranscriptionFinished(const Transcript& transcript);
    // Cancelled, a failure the CPU backend may get past (offered, with the job again), or an error.
    void onTranscriptionFailed(const EngineFailure& failure);

    const EngineSettings& m_settings;
    std::shared_ptr<EngineControls> m_controls;
    TranscriptModel* m_transcript = nullptr;
    QSettings& m_stored;
    bool m_wordTimestamps = false;

    Job m_job = Job::None;
    bool m_hasModel = false;
    QString m_modelPath;
    QString m_loadingModelPath;        // the model being loaded (retried on the CPU when its backend fails)
    AudioSummary m_audio;
    bool m_jobStarted = false;         // the current or last file decoded its audio and began (transcriptionStarted)
    double m_jobReachedSeconds = 0.0;  // audio of the file transcribed so far by that job (a continuation starts there)
    int m_resumeIdBase = 0;            // segment ids of the file's rows follow the ones kept
};

} // namespace hearsay::ui
