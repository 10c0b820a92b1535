// What a dictation run shows while it goes, from the worker's reports: the tentative and the
// committed text in the transcript (the table follows the end when it was there), the Live dock
// and the cache panel's figures, the input level, the run's audio for word playback, and the
// committed text typed into the focused application. It tells the DictationController each
// report and the window what to say and when to repaint; the window starts and stops runs.
#pragma once

#include "ui/message_bar.h"
#include "ui/worker_messages.h"

#include <QObject>

namespace hearsay::ui {

class CachePanel;
class DictateAnywhere;
class DictationController;
class LevelMeterBar;
class LivePanel;
class TranscriptModel;
class TranscriptPane;
class TranscriptionWorker;
class WordPlayback;

class DictationView : public QObject {
    Q_OBJECT
public:
    // What a run paints; `window`: committed text is not typed into it (or its dialogs).
    struct Targets {
        QWidget* window = nullptr;
        TranscriptPane* pane = nullptr;
        TranscriptModel* transcript = nullptr;
        LivePanel* live = nullptr;
        CachePanel* cache = nullptr;
        LevelMeterBar* level = nullptr;
        WordPlayback* playback = nullptr;
        DictateAnywhere* anywhere = nullptr;
    };

    DictationView(DictationController& dictation, const Targets& targets, QObject* parent = nullptr);

    // The worker's dictation reports to this.
    void connectWorker(TranscriptionWorker* worker);
    // Before a run: the Live dock cleared, the transcript's open utterance closed, the last
    // run's audio let go.
    void prepare();

signals:
    void status(const QString& text);
    // The message strip; an Error is also the status "Error".
    void message(hearsay::ui::MessageBar::Kind kind, const QString& text);
    // The controller's phase changed: the window repaints its state.
    void phaseChanged();
    // The input devices may have changed (one vanished): the list is asked for again.
    void devicesChanged();
    void started();
    void stepShown(const hearsay::StreamingStep& step);
    void committedShown(const QString& text);
    // The tentative words and the input level as they are shown (for the tray's indicator).
    void tentativeShown(const QString& text);
    void inputLevelShown(const hearsay::InputLevel& level);
    // Everything captured has been shown; ok: no error.
    void ended(bool ok);

private:
    void fail(const QString& text);
    void onStarted(const DictationInfo& info);
    void onFailed(const QString& error);
    void onTentative(const TentativeText& text);
    void onCommitted(const CommittedText& text);
    void onStep(const StreamingStep& step);
    void onFinished(const StreamingSummary& summary);

    DictationController& m_dictation;
    Targets m_targets;
};

} // namespace hearsay::ui
