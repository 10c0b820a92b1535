// Hearsay on the desktop beyond its main window: the tray icon (ui/tray_icon.h) and the
// on-screen dictation indicator (ui/dictation_indicator.h), both following the window's state
// and its dictation runs, and closing into the tray.
//
// The indicator shows while a run is under way and Hearsay's own window is not the active one
// (the words go into another application), when the dictate-anywhere settings have it on; after
// the run it stays a few seconds (kLingerMs) for Copy, or until dismissed when typing failed in
// that run. "Keep running in the tray" makes closing the window hide it, when the desktop has a
// tray: the shortcut, the D-Bus requests and the tray menu keep working; the tray's Quit closes
// the window for good. "Start hidden in the tray" (or `hearsay --hidden`) leaves the window hidden
// at start, where there is a tray to bring it back from.
#pragma once

#include "core/audio/level_meter.h"
#include "core/typing/insertion_spacing.h"
#include "ui/anywhere_settings.h"

#include <QObject>
#include <QString>
#include <QTimer>

class QSettings;

namespace hearsay::ui {

class DictationIndicator;
class MainWindow;
class TrayIcon;

class DesktopPresence : public QObject {
    Q_OBJECT
public:
    static constexpr int kLingerMs = 5000;
    // At start, how long a tray may take to appear (a desktop panel starting with the session,
    // after Hearsay) before the window is shown after all, and how often it is looked for.
    static constexpr int kTrayWaitMs = 10000;
    static constexpr int kTrayPollMs = 250;

    // Follows `window` (whose parent it is); the indicator's dragged-to position is kept in `settings`.
    DesktopPresence(MainWindow* window, QSettings& settings);
    ~DesktopPresence() override;

    TrayIcon* tray() const { return m_tray; }
    DictationIndicator* indicator() const { return m_indicator; }
    // Closing the window hides it: the setting is on and the desktop has a tray.
    bool closeHidesWindow() const;
    // The committed text of the current or last dictation run, spaced as it is typed.
    QString lastRunText() const { return m_runText; }
    // Shows the window at start, or leaves it hidden in the tray when `hiddenAsked` (--hidden)
    // or the settings say so (keep in the tray and start there). With no tray yet, the window
    // shows once kTrayWaitMs pass without one, and the message bar says why.
    void showAtStart(bool hiddenAsked);
    // The window is hidden in the tray since the start, or waits for a tray to appear.
    bool startedHidden() const { return m_startedHidden; }
    // Quits Hearsay (the tray's and the File menu's Quit): the window closes for good, also when
    // it would hide into the tray.
    void quit();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void applySettings();
    void windowStateChanged();
    void runStarted();
    void runEnded();
    void updateIndicator();
    bool ownWindowActive() const;
    // Whether the desktop has a tray now (a panel may start after Hearsay): the setting and the icon follow.
    void refreshTray();

    MainWindow* m_window;
    QSettings& m_settings;
    AnywhereSettings m_anywhere;
    TrayIcon* m_tray = nullptr;
    DictationIndicator* m_indicator = nullptr;
    bool m_running = false;        // a run is under way (the window dictates or stops)
    bool m_lingering = false;      // a run ended a moment ago: the indicator stays for Copy
    bool m_dismissed = false;      // the user closed the indicator until the next run
    bool m_typingFailed = false;   // typing stopped in the current or last run
    bool m_quitting = false;       // the tray's Quit: the close goes through
    bool m_startedHidden = false;  // showAtStart() left the window hidden
    QTimer m_trayWait;             // at start: looks for a tray while the window is hidden
    int m_trayWaited = 0;          // ms so far
    InsertionSpacing m_spacing;
    QString m_runText;
    QTimer m_linger;
};

} // namespace hearsay::ui
