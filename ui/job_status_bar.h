// The main window's status bar: a line saying what happens, and while a model loads or a file
// is transcribed its progress (busy until the first figures) with Cancel for a file.
#pragma once

#include <QStatusBar>

class QLabel;
class QProgressBar;
class QPushButton;

namespace hearsay::ui {

class JobStatusBar : public QStatusBar {
    Q_OBJECT
public:
    enum class Job { None, LoadingModel, Transcribing };

    explicit JobStatusBar(QWidget* parent = nullptr);

    void setText(const QString& text);
    // Progress for a model load (busy) or a file (with Cancel); nothing for None.
    void showJob(Job job);
    // `fraction` of the file done, or busy while negative; `text` on the bar.
    void setProgress(double fraction, const QString& text);
    // Cancel was asked for: the button waits for the job's end.
    void cancelling();

signals:
    void cancelRequested();

private:
    QLabel* m_text = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
};

} // namespace hearsay::ui
