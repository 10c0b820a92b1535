// The menus and the toolbar (see main_window_actions.h).
#include "ui/main_window_actions.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QToolBar>

namespace hearsay::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("MainWindow", text); }

} // namespace

MainWindowActions MainWindowActions::create(QMainWindow* window, QWidget* transcript) {
    MainWindowActions a;
    QMenuBar* bar = window->menuBar();

    QMenu* file = bar->addMenu(tr("&File"));
    a.openModel = file->addAction(tr("Open &model…"));
    a.openModel->setShortcut(QKeySequence(tr("Ctrl+M")));
    a.openModel->setStatusTip(tr("Open a whisper.cpp ggml .bin file, the model.bin of a CTranslate2 (faster-whisper) "
                                 "model, or the config.json of a Hugging Face checkpoint"));
    a.openModelDirectory = file->addAction(tr("Open model &directory…"));
    a.openModelDirectory->setStatusTip(tr("Open a Hugging Face or CTranslate2 (faster-whisper) Whisper model directory"));
    a.models = file->addAction(tr("Mo&dels…"));
    a.models->setStatusTip(tr("Download a Whisper model, or open one already on this computer"));
    a.openAudio = file->addAction(tr("Open &audio…"));
    a.openAudio->setShortcut(QKeySequence::Open);
    a.openAudio->setStatusTip(tr("Transcribe a WAV, FLAC, OGG or MP3 file, or a video through FFmpeg"));
    file->addSeparator();
    a.exportTranscript = file->addAction(tr("&Export transcript…"));
    a.exportTranscript->setShortcut(QKeySequence(tr("Ctrl+E")));
    a.recover = file->addAction(tr("&Recover last dictation…"));
    a.recover->setObjectName("recoverAction");
    a.recover->setStatusTip(tr("Offer again the dictated text that a run which did not close normally left on disk"));
    file->addSeparator();
    a.quit = file->addAction(tr("&Quit"));
    a.quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = bar->addMenu(tr("&Edit"));
    a.copy = edit->addAction(tr("&Copy"));
    a.copy->setShortcut(QKeySequence::Copy);
    a.copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    a.copyAll = edit->addAction(tr("Copy &all text"));
    a.selectAll = edit->addAction(tr("Select &all"));
    a.selectAll->setShortcut(QKeySequence::SelectAll);
    edit->addSeparator();
    a.clear = edit->addAction(tr("C&lear transcript"));
    transcript->addAction(a.copy);
    transcript->addAction(a.copyAll);
    transcript->addAction(a.selectAll);

    QMenu* transcription = bar->addMenu(tr("&Transcription"));
    a.record = transcription->addAction(tr("&Record"));
    a.record->setObjectName("recordAction");
    a.record->setShortcut(QKeySequence(tr("Ctrl+R")));
    a.cancel = transcription->addAction(tr("&Cancel"));
    a.cancel->setShortcut(QKeySequence(Qt::Key_Escape));

    QToolBar* toolbar = window->addToolBar(tr("Dictation"));
    toolbar->setObjectName("dictationToolbar");
    toolbar->addAction(a.record);
    toolbar->addAction(a.openAudio);
    toolbar->addAction(a.cancel);

    QMenu* view = bar->addMenu(tr("&View"));
    for (QDockWidget* dock : window->findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    a.segmentTimes = view->addAction(tr("Segment &times"));
    a.segmentTimes->setCheckable(true);
    // The next file is transcribed with word timestamps while this is on.
    a.wordTimings = view->addAction(tr("&Word timings"));
    a.wordTimings->setObjectName("wordTimingsAction");
    a.wordTimings->setCheckable(true);
    a.wordTimings->setStatusTip(tr("Show each word with its times (hover) and tint the unsure ones; click a word to "
                                   "play the audio from there, Space to pause. Files opened from now on get word "
                                   "timings."));

    QMenu* help = bar->addMenu(tr("&Help"));
    a.about = help->addAction(tr("&About Hearsay"));
    a.about->setObjectName("aboutAction");
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    return a;
}

} // namespace hearsay::ui
