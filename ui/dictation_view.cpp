// The dictation run's reports, painted (see dictation_view.h).
#include "ui/dictation_view.h"

#include "ui/cache_panel.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictation_controller.h"
#include "ui/level_meter_bar.h"
#include "ui/live_panel.h"
#include "ui/transcript_model.h"
#include "ui/transcript_pane.h"
#include "ui/transcription_worker.h"
#include "ui/word_playback.h"

#include "core/frontend/log_mel.h"

#include <QApplication>

namespace hearsay::ui {

DictationView::DictationView(DictationController& dictation, const Targets& targets, QObject* parent)
    : QObject(parent), m_dictation(dictation), m_targets(targets) {}

void DictationView::connectWorker(TranscriptionWorker* worker) {
    connect(worker, &TranscriptionWorker::dictationStarted, this, &DictationView::onStarted);
    connect(worker, &TranscriptionWorker::dictationFailed, this, &DictationView::onFailed);
    connect(worker, &TranscriptionWorker::tentativeChanged, this, &DictationView::onTentative);
    connect(worker, &TranscriptionWorker::textCommitted, this, &DictationView::onCommitted);
    connect(worker, &TranscriptionWorker::dictationStep, this, &DictationView::onStep);
    connect(worker, &TranscriptionWorker::inputLevelChanged, m_targets.level, &LevelMeterBar::setLevel);
    connect(worker, &TranscriptionWorker::inputLevelChanged, this, &DictationView::inputLevelShown);
    connect(worker, &TranscriptionWorker::dictationAudio, this, [this](const DictationAudio& audio) {
        m_targets.playback->dictationAudio(audio.samples, kSampleRate, audio.truncated);
    });
    connect(worker, &TranscriptionWorker::dictationFinished, this, &DictationView::onFinished);
}

void DictationView::prepare() {
    m_targets.live->clear();
    m_targets.transcript->closeUtterance();
    m_targets.playback->dictationStarting();
}

void DictationView::fail(const QString& text) {
    emit message(MessageBar::Kind::Error, text);
    emit status(tr("Error"));
}

void DictationView::onStarted(const DictationInfo& info) {
    // The cache panel follows the dictation's session from now on (its counters from zero).
    m_targets.cache->setMetrics(m_dictation.started(info, m_targets.cache->metrics()));
    m_targets.anywhere->runStarted();
    emit status(tr("Listening: %1").arg(info.source));
    emit started();
}

void DictationView::onFailed(const QString& error) {
    m_dictation.failed();
    fail(error);
    emit phaseChanged();
    emit devicesChanged();  // the device list may have changed (a device that vanished)
    emit ended(false);
}

void DictationView::onTentative(const TentativeText& text) {
    m_targets.pane->keepingScroll([&] { m_targets.transcript->setTentative(QString::fromStdString(text.text)); });
    emit tentativeShown(QString::fromStdString(text.text));
}

void DictationView::onCommitted(const CommittedText& text) {
    m_targets.pane->keepingScroll([&] {
        m_targets.transcript->appendCommitted(text.text, text.start, text.end, text.endOfUtterance, text.words);
    });
    m_targets.live->setLatency(text.tentativeLatency, text.commitLatency);
    emit committedShown(QString::fromStdString(text.text));
    // Into the focused application too, unless it is the window (or one of its dialogs).
    const QWidget* active = QApplication::activeWindow();
    const bool ownWindowActive = active && (active == m_targets.window || active->parentWidget() == m_targets.window);
    m_targets.anywhere->committed(text.text, ownWindowActive);
}

void DictationView::onStep(const StreamingStep& step) {
    m_targets.live->setStep(step);
    // The model and caches panel shows the dictation's session.
    m_targets.cache->setMetrics(DictationController::withStep(m_targets.cache->metrics(), step));
    emit stepShown(step);
}

void DictationView::onFinished(const StreamingSummary& summary) {
    m_dictation.finished(summary);
    m_targets.pane->keepingScroll([&] {
        m_targets.transcript->setTentative(QString());
        m_targets.transcript->closeUtterance();
    });
    m_targets.level->setLevel({});
    const QString figures = tr("%1 s of audio, %2 steps, real-time factor %3")
                                .arg(summary.audioSeconds, 0, 'f', 1)
                                .arg(summary.steps)
                                .arg(summary.realTimeFactor, 0, 'f', 3);
    emit phaseChanged();
    if (!summary.error.empty()) {
        fail(tr("Dictation from %1 ended: %2\nThe text committed until then is kept.")
                 .arg(m_dictation.source(), QString::fromStdString(summary.error)));
        emit devicesChanged();  // a device that was lost: the list as it is now
    } else {
        emit status(tr("Dictation ended: %1").arg(figures));
    }
    if (summary.droppedSamples > 0)
        emit message(MessageBar::Kind::Warning, tr("%1 s of audio were lost: the engine fell behind the microphone.")
                                                    .arg(double(summary.droppedSamples) / 16000.0, 0, 'f', 1));
    emit ended(summary.error.empty());
}

} // namespace hearsay::ui
