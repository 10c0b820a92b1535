// What the desktop application does at start beyond showing its window, from its command line:
// open a model (the one given, the last session's, or on a first start tiny.en when it is on the
// disk, else the model manager offering the download), then transcribe a file or dictate from one
// played at real-time pace, and, for checks by eye on headless machines and demos, save a picture
// of the window (with a dialog over it drawn where it stands) and quit with the jobs' outcome.
// It drives the window through its public slots and signals, as a user would.
#pragma once

#include <QObject>
#include <QString>

namespace hearsay::ui {

class MainWindow;

struct StartupPlan {
    QString model;                 // empty: the last session's, else the first start's choice
    QString audio;                 // transcribe this file once the model is loaded
    QString dictated;              // dictate from this file, played at `pace`, once the model is loaded
    double pace = 1.0;             // seconds of audio per second
    QString screenshot;            // a PNG of the window once the jobs end, then quit (status 1 if one failed)
    double screenshotAfter = -1.0; // >= 0: the picture this many seconds after dictation starts
    double cachesOffAfter = -1.0;  // >= 0: both K/V caches off this many seconds into the dictation
    bool printCommitted = false;   // each committed piece of dictation on standard output, a line each
};

class StartupDriver : public QObject {
    Q_OBJECT
public:
    StartupDriver(MainWindow& window, StartupPlan plan);

    // Opens the model and starts the jobs; with a screenshot asked for, the application quits
    // once it is saved (QApplication::exit with 0, or 1 when a job or the picture failed).
    void start();

private:
    void startJobs();
    void finish(bool ok);
    void takeScreenshot();

    MainWindow& m_window;
    StartupPlan m_plan;
    bool m_done = false;
    bool m_ok = true;
};

} // namespace hearsay::ui
