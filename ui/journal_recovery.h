// The dictated text that runs which did not end normally (a crash, a kill) left in the journal
// directory: offered in the recovery bar (at start, and again from File › Recover last
// dictation…), restored into the transcript (oldest run first; the text then belongs to this
// window's journal) or discarded. The journals are the DictationController's; the bar paints the
// offer; this decides what Restore and Discard do to them and to the transcript.
#pragma once

#include "ui/message_bar.h"

#include <QObject>

namespace hearsay::ui {

class DictationController;
class RecoveryBar;
class TranscriptModel;

class JournalRecovery : public QObject {
    Q_OBJECT
public:
    JournalRecovery(DictationController& dictation, TranscriptModel* transcript, RecoveryBar* bar,
                    QObject* parent = nullptr);

    // Looks for the text again and offers it; `tellIfNone`: say so when there is none.
    void offer(bool tellIfNone);
    // Appends the text to the transcript and moves its records into this window's journal;
    // false when there was none.
    bool restore();
    // Removes the text from the disk without restoring it; false when there was none.
    bool discard();

signals:
    void message(hearsay::ui::MessageBar::Kind kind, const QString& text);

private:
    DictationController& m_dictation;
    TranscriptModel* m_transcript = nullptr;
    RecoveryBar* m_bar = nullptr;
};

} // namespace hearsay::ui
