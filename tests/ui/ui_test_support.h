// What the GUI tests share: the shared data's clips, the random test model they load (made by
// hearsay-cli make-test-model, as a user would), and waiting for a window's jobs.
#pragma once

#include "ui/main_window.h"
#include "ui/transcript_model.h"

#include <QRegularExpression>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QString>
#include <QWidget>

namespace hearsay::test {

#ifdef HEARSAY_SANITIZED
constexpr int kJobTimeoutMs = 1800000;  // a Debug ASan or TSan build runs a job several times slower
#else
constexpr int kJobTimeoutMs = 300000;  // a generous bound for slow, shared CI machines
#endif

// Lower-case words without punctuation, for comparing what was said with what was written.
inline QStringList words(const QString& text) {
    QString t = text.toLower();
    t.remove(QRegularExpression("[^a-z0-9' ]"));
    return t.split(' ', Qt::SkipEmptyParts);
}

inline QString jfk() { return QString(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav"; }
inline QString speech30() { return QString(HEARSAY_SHARED_DATA_DIR) + "/speech-30s-a.wav"; }

// Writes the 64x2x2 random model (seed 1, HF format) at `path`; an empty string, or what went wrong.
inline QString makeTestModel(const QString& path) {
    QProcess cli;
    cli.start(HEARSAY_CLI_PATH, {"make-test-model", "--dims", "64x2x2", "--seed", "1", "--format", "hf", path});
    if (!cli.waitForFinished(120000)) return "make-test-model did not finish: " + cli.errorString();
    if (cli.exitCode() != 0) return "make-test-model failed: " + QString::fromUtf8(cli.readAllStandardError());
    return QString();
}

// Opens `path` in the window and waits; whether it loaded (the window is idle again by then).
inline bool loadModel(ui::MainWindow& window, const QString& path) {
    QSignalSpy done(&window, &ui::MainWindow::modelLoadFinished);
    window.openModel(path);
    if (!done.wait(kJobTimeoutMs) || done.count() != 1) return false;
    return !window.isBusy() && done.at(0).at(0).toBool();
}

// The text of the child label `name` of `parent`, or a placeholder naming the missing label.
inline QString labelText(const QWidget* parent, const char* name) {
    auto* label = parent->findChild<QLabel*>(name);
    return label ? label->text() : QString("<no label %1>").arg(name);
}

// Every segment's text, one per line.
inline QString transcriptText(const ui::TranscriptModel& model) {
    QString text;
    for (int r = 0; r < model.segmentCount(); ++r) text += QString::fromStdString(model.segment(r).text) + '\n';
    return text;
}

} // namespace hearsay::test
