// The main window's menus and toolbar, built in one place: each action with its text, shortcut,
// tip and object name, in the order the menus show them. The window connects them to what they
// ask for; only About Qt is connected here (it needs nothing of the window).
#pragma once

class QAction;
class QMainWindow;
class QWidget;

namespace hearsay::ui {

struct MainWindowActions {
    // File
    QAction* openModel = nullptr;
    QAction* openModelDirectory = nullptr;
    QAction* models = nullptr;
    QAction* openAudio = nullptr;
    QAction* exportTranscript = nullptr;
    QAction* recover = nullptr;  // "recoverAction"
    QAction* quit = nullptr;     // the window connects it (closing may only hide it, ui/desktop_presence.h)
    // Edit (Copy, Copy all text and Select all also in the transcript's context menu)
    QAction* copy = nullptr;
    QAction* copyAll = nullptr;
    QAction* selectAll = nullptr;
    QAction* clear = nullptr;
    // Transcription (Record, Open audio and Cancel also on the Dictation toolbar)
    QAction* record = nullptr;  // "recordAction"
    QAction* cancel = nullptr;
    // View: a toggle per dock of the window, then the transcript's two checkable views
    QAction* segmentTimes = nullptr;
    QAction* wordTimings = nullptr;  // "wordTimingsAction"
    // Help
    QAction* about = nullptr;  // "aboutAction"

    // Adds the menus and the toolbar to `window` (after its docks exist: the View menu lists
    // them); `transcript` gets Copy, Copy all text and Select all as its context menu.
    static MainWindowActions create(QMainWindow* window, QWidget* transcript);
};

} // namespace hearsay::ui
