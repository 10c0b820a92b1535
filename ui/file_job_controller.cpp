// Model loads and file transcriptions with the worker (see file_job_controller.h).
#include "ui/file_job_controller.h"

#include "ui/transcript_model.h"
#include "ui/transcription_worker.h"

#include "ui/engine_controls.h"

#include <QFileInfo>
#include <QSettings>

#include <algorithm>
#include <utility>

namespace hearsay::ui {

FileJobController::FileJobController(const EngineSettings& settings, std::shared_ptr<EngineControls> controls,
                                     TranscriptModel* transcript, QSettings& stored, QObject* parent)
    : QObject(parent), m_settings(settings), m_controls(std::move(controls)), m_transcript(transcript),
      m_stored(stored) {}

void FileJobController::connectWorker(TranscriptionWorker* worker) {
    connect(worker, &TranscriptionWorker::modelLoading, this, &FileJobController::onModelLoading);
    connect(worker, &TranscriptionWorker::modelLoaded, this, &FileJobController::onModelLoaded);
    connect(worker, &TranscriptionWorker::modelFailed, this, &FileJobController::onModelFailed);
    connect(worker, &TranscriptionWorker::transcriptionStarted, this, &FileJobController::onTranscriptionStarted);
    connect(worker, &TranscriptionWorker::progressChanged, this, &FileJobController::onProgress);
    connect(worker, &TranscriptionWorker::segmentsReady, this, &FileJobController::onSegments);
    connect(worker, &TranscriptionWorker::transcriptionFinished, this, &FileJobController::onTranscriptionFinished);
    connect(worker, &TranscriptionWorker::transcriptionFailed, this, &FileJobController::onTranscriptionFailed);
    connect(this, &FileJobController::loadModelRequested, worker, &TranscriptionWorker::loadModel, Qt::QueuedConnection);
    connect(this, &FileJobController::transcribeRequested, worker, &TranscriptionWorker::transcribeFile,
            Qt::QueuedConnection);
}

void FileJobController::setJob(Job job) {
    m_job = job;
    emit jobChanged();
}

void FileJobController::fail(const QString& text) {
    emit message(MessageBar::Kind::Error, text);
    emit status(tr("Error"));
}

// ---- requests -----------------------------------------------------------------------------------

void FileJobController::loadModel(const QString& path) {
    setJob(Job::LoadingModel);
    m_loadingModelPath = path;
    emit loadModelRequested(path, m_settings);
}

void FileJobController::transcribe(const QString& path) {
    if (!m_hasModel) {
        fail(tr("Open a model before transcribing %1 (File › Open model).").arg(QFileInfo(path).fileName()));
        return;
    }
    m_stored.setValue("session/audioFolder", QFileInfo(path).absolutePath());
    if (m_transcript->segmentCount() > 0)
        emit message(MessageBar::Kind::Information, tr("The transcript of %1 follows the earlier text, which is kept "
                                                       "(Edit › Clear transcript starts afresh).")
                                                        .arg(QFileInfo(path).fileName()));
    startJob(path, 0.0);
}

void FileJobController::startJob(const QString& path, double startSeconds) {
    // The transcript shown stays until the new job has its audio (see onTranscriptionStarted):
    // a job that cannot start loses nothing.
    m_audio = {};
    m_audio.path = path;
    m_jobStarted = false;
    m_jobReachedSeconds = startSeconds;
    emit status(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    setJob(Job::Transcribing);
    // Until the first window ends, nothing is known of the progress: a busy bar, not the last
    // file's figures or a 0% that never moves on a single-window file.
    emit progressShown(-1.0, tr("Opening…"));
    EngineSettings settings = m_settings;
    settings.wordTimestamps = m_wordTimestamps;
    if (startSeconds > 0.0) {
        // A continuation is prompted with the end of the text kept, as the next window of an
        // unbroken run would be (the engine keeps the last n_text_ctx/2 - 1 tokens of it).
        QString kept;
        for (int r = m_transcript->segmentCount() - 1; r >= 0 && kept.size() < 1000; --r)
            kept.prepend(QString::fromStdString(m_transcript->segment(r).text));
        settings.initialPrompt = kept.right(1000);
    }
    emit transcribeRequested(path, settings, startSeconds, m_controls->newJob());
}

bool FileJobController::cancel() {
    if (m_job != Job::Transcribing) return false;
    m_controls->cancel();
    emit status(tr("Cancelling…"));
    return true;
}

// ---- worker reports ------------------------------------------------------------------------------

void FileJobController::onModelLoading(const QString& path) {
    emit status(tr("Loading %1…").arg(QFileInfo(path).fileName()));
}

void FileJobController::onModelLoaded(const ModelSummary& model) {
    m_hasModel = true;
    m_modelPath = model.path;
    m_stored.setValue("session/lastModel", model.path);
    m_stored.setValue("session/modelFolder", QFileInfo(model.path).absolutePath());
    m_job = Job::None;  // told with jobChanged once the model is painted
    emit modelLoaded(model);
    emit status(tr("Model loaded: %1").arg(QFileInfo(model.path).fileName()));
    emit jobChanged();
    emit modelLoadFinished(true);
}

void FileJobController::onModelFailed(const EngineFailure& failure) {
    const QString& error = failure.message;
    const QString text = m_hasModel ? tr("%1\nThe previous model stays loaded.").arg(error) : error;
    setJob(Job::None);
    if (failure.cpuMayHelp()) {
        emit cpuBackendOffered(MessageBar::Kind::Error,
                               tr("%1\nThe CPU backend can run this model (more slowly).").arg(text),
                               [this, path = m_loadingModelPath] { loadModel(path); });
        emit status(tr("Error"));
    } else {
        fail(text);
    }
    emit modelLoadFinished(false);
}

void FileJobController::onTranscriptionStarted(const AudioSummary& audio) {
    m_audio = audio;
    m_jobStarted = true;
    m_jobReachedSeconds = audio.startSeconds;
    emit progressShown(-1.0, tr("0.0 of %1 s").arg(audio.durationSeconds, 0, 'f', 1));  // busy until the first window ends
    // The segments on screen stay (an earlier file's, or dictated text): the new ones follow them.
    const int rows = m_transcript->segmentCount();
    m_resumeIdBase = rows > 0 ? m_transcript->segment(rows - 1).id + 1 : 0;
    emit audioOpened(audio);
    if (audio.startSeconds > 0.0) {
        emit status(tr("Continuing %1 from %2 s on the %3 backend")
                        .arg(QFileInfo(audio.path).fileName())
                        .arg(audio.startSeconds, 0, 'f', 1)
                        .arg(m_settings.backend.toUpper()));
        return;
    }
    emit status(tr("Transcribing %1 (%2 s, %3 Hz, %4 ch, %5)")
                    .arg(QFileInfo(audio.path).fileName())
                    .arg(audio.durationSeconds, 0, 'f', 1)
                    .arg(audio.sourceRate)
                    .arg(audio.sourceChannels)
                    .arg(audio.decoder));
}

void FileJobController::onProgress(double fraction) {
    m_jobReachedSeconds = std::max(m_jobReachedSeconds, fraction * m_audio.durationSeconds);
    emit progressShown(fraction, tr("%1 of %2 s")
                                     .arg(fraction * m_audio.durationSeconds, 0, 'f', 1)
                                     .arg(m_audio.durationSeconds, 0, 'f', 1));
}

void FileJobController::onSegments(const SegmentList& segments) {
    SegmentList numbered = segments;
    for (Segment& s : numbered) s.id += m_resumeIdBase;
    emit segmentsReady(numbered);
}

void FileJobController::onTranscriptionFinished(const Transcript& transcript) {
    m_transcript->setRunDetails(transcript.source, transcript.language, transcript.statistics);
    const RunStatistics& s = transcript.statistics;
    emit status(tr("Transcribed %1: %2 segments, language %3, %4 s of audio in %5 s (real-time factor %6)")
                    .arg(QFileInfo(m_audio.path).fileName())
                    .arg(m_transcript->segmentCount())
                    .arg(QString::fromStdString(transcript.language))
                    .arg(s.audioSeconds, 0, 'f', 1)
                    .arg(s.wallSeconds, 0, 'f', 2)
                    .arg(s.realTimeFactor(), 0, 'f', 3));
    setJob(Job::None);
    emit transcriptionEnded(true);
}

void FileJobController::onTranscriptionFailed(const EngineFailure& failure) {
    const QString& error = failure.message;
    // Rows on screen belong to this job only once it started; before, they are the last file's.
    if (m_jobStarted) m_transcript->setRunDetails(m_audio.path.toStdString(), {}, {});
    const QString kept = m_transcript->segmentCount() > 0
                             ? tr("The %n segment(s) already transcribed are kept.", nullptr, m_transcript->segmentCount())
                             : QString();
    setJob(Job::None);
    if (failure.cancelled()) {
        emit message(MessageBar::Kind::Information, (error + ". " + kept).trimmed());
        emit status(tr("Cancelled"));
    } else if (failure.cpuMayHelp()) {
        // Retried on the CPU: a job that had begun continues where it stopped (the end of its
        // last complete window), so nothing is transcribed twice and nothing is lost; one that
        // had not begun starts from the beginning.
        const QString path = m_audio.path;
        const double from = m_jobStarted ? m_jobReachedSeconds : 0.0;
        const QString how =
            from > 0.0 ? tr("The CPU backend can continue from %1 s (more slowly).").arg(from, 0, 'f', 1)
                       : tr("The CPU backend can transcribe %1 (more slowly).").arg(QFileInfo(path).fileName());
        emit cpuBackendOffered(MessageBar::Kind::Error,
                               (kept.isEmpty() ? error : error + "\n" + kept) + "\n" + how,
                               [this, path, from] { startJob(path, from); });
        emit status(tr("Error"));
    } else {
        fail(kept.isEmpty() ? error : error + "\n" + kept);
    }
    emit transcriptionEnded(false);
}

} // namespace hearsay::ui
