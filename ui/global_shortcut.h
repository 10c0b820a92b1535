// A key combination that reaches Hearsay whichever window has the focus: on X11 a passive grab
// of the key on the root window (its own connection to the X server, read on the GUI thread
// through a socket notifier), reported as pressed() when it goes down and released() when it
// comes up, held keys not repeating (XKB's detectable auto-repeat). Push-to-talk and toggle are
// the window's choice of what to do with the two.
//
// In a Wayland session whose desktop portal offers GlobalShortcuts (GNOME 48+, KDE, Hyprland) the
// desktop binds the key instead (ui/portal_shortcut.h): grab() asks, and changed() says when the
// desktop has answered; Activated and Deactivated are pressed() and released() (no key grab: the
// focused application keeps the keyboard). Elsewhere on Wayland the X11 grab through XWayland is
// tried as before (it sees keys only while an X11 window has the focus); desktops with neither
// bind a key to `hearsay --dictate toggle`.
#pragma once

#include <QObject>
#include <QString>

#include <memory>

class QSocketNotifier;

namespace hearsay::ui {

class PortalShortcut;

// Qt's key as the X11 key symbol a global shortcut uses (letters, digits, F1 to F35, Space, Pause,
// Scroll Lock, Insert, Home, End, Page Up and Down, Print, Menu; its name is the XDG shortcut
// spec's too); 0 (NoSymbol) for another key, which cannot be a shortcut.
unsigned long shortcutKeysym(int key);

class GlobalShortcut : public QObject {
    Q_OBJECT
public:
    explicit GlobalShortcut(QObject* parent = nullptr);
    ~GlobalShortcut() override;

    // Grabs `sequence` ("F9", "Ctrl+Alt+D": Qt's portable text) in place of the current one;
    // false, with error() saying why in one line (no X11 display, a key X11 does not know, the
    // combination already taken by another program), and no grab then. Through the portal: true
    // once asked; isPending() until the desktop answers, then changed().
    bool grab(const QString& sequence);
    void release();
    bool active() const;
    bool isPending() const;
    // Between pressed() and released(): the key is held, and the X server sends every key event
    // to this grab (none reaches the focused application).
    bool isDown() const { return m_down; }
    QString error() const { return m_error; }
    // "X11 key grab on :0", "desktop portal (GlobalShortcuts): Ctrl+Alt+D", or why there is none.
    QString mechanism() const;

signals:
    void pressed();
    void released();
    // The desktop portal answered after grab() returned: active(), mechanism() or error() read differently.
    void changed();

private:
    void readEvents();
    // Whether the shortcut goes through the portal here (a Wayland desktop with GlobalShortcuts, or
    // HEARSAY_SHORTCUT=portal); `why` says why not on Wayland.
    static bool usesPortal(QString* why);

    struct Connection;
    std::unique_ptr<Connection> m_connection;
    QSocketNotifier* m_notifier = nullptr;
    unsigned m_keycode = 0;
    unsigned m_modifiers = 0;
    bool m_down = false;
    QString m_error;
    PortalShortcut* m_portal = nullptr;
};

} // namespace hearsay::ui
