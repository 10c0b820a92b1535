// The centre of the main window, top to bottom: the recovery bar, the message strip, the
// dictation strip (the big Record/Stop button and the input level), then the transcript: a hint
// while there is nothing to show, the table of segments, or the same rows as running words
// (View › Word timings). It paints what the window tells it and forwards the Record button.
#pragma once

#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace hearsay::ui {

class LevelMeterBar;
class MessageBar;
class RecoveryBar;
class TranscriptModel;
class WordTimingsView;

class TranscriptPane : public QWidget {
    Q_OBJECT
public:
    explicit TranscriptPane(TranscriptModel* transcript, QWidget* parent = nullptr);

    QTableView* view() const { return m_view; }
    WordTimingsView* words() const { return m_words; }
    MessageBar* messageBar() const { return m_messageBar; }
    RecoveryBar* recoveryBar() const { return m_recoveryBar; }
    LevelMeterBar* levelMeter() const { return m_levelMeter; }

    // The transcript as a table, or as running words.
    void showTranscript(bool asWords);
    // Instead of the transcript: `html`, greyed, in the middle.
    void showHint(const QString& html);
    // The Record/Stop button: its label, whether it can act, and why (its tooltip).
    void setRecordButton(const QString& label, bool enabled, const QString& why);
    // Runs `change` on the transcript, then scrolls to the end if the table was at the end
    // before (the user who scrolled up to read stays where he is).
    void keepingScroll(const std::function<void()>& change);
    // Edit › Copy: the selected rows' text to the clipboard (the whole transcript when none is
    // selected); Edit › Copy all: the whole transcript as plain text.
    void copySelection();
    void copyAll();

signals:
    void recordClicked();

private:
    TranscriptModel* m_transcript = nullptr;
    QTableView* m_view = nullptr;
    WordTimingsView* m_words = nullptr;
    QLabel* m_hint = nullptr;
    QStackedWidget* m_pages = nullptr;
    MessageBar* m_messageBar = nullptr;
    RecoveryBar* m_recoveryBar = nullptr;
    QPushButton* m_recordButton = nullptr;
    LevelMeterBar* m_levelMeter = nullptr;
};

} // namespace hearsay::ui
