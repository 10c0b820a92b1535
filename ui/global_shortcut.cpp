// The X11 global shortcut (see global_shortcut.h).
#include "ui/global_shortcut.h"

#include "ui/portal_shortcut.h"

#include <QKeySequence>
#include <QSocketNotifier>

#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>

#include <cstdlib>

namespace hearsay::ui {
namespace {

int g_grabError = 0;  // set by the error handler while a grab is tried (GUI thread only)

int recordError(Display*, XErrorEvent* event) {
    g_grabError = event->error_code;
    return 0;
}

} // namespace

unsigned long shortcutKeysym(int key) {
    if (key >= Qt::Key_A && key <= Qt::Key_Z) return XK_a + (key - Qt::Key_A);
    if (key >= Qt::Key_0 && key <= Qt::Key_9) return XK_0 + (key - Qt::Key_0);
    if (key >= Qt::Key_F1 && key <= Qt::Key_F35) return XK_F1 + (key - Qt::Key_F1);
    switch (key) {
    case Qt::Key_Space: return XK_space;
    case Qt::Key_Pause: return XK_Pause;
    case Qt::Key_ScrollLock: return XK_Scroll_Lock;
    case Qt::Key_Insert: return XK_Insert;
    case Qt::Key_Home: return XK_Home;
    case Qt::Key_End: return XK_End;
    case Qt::Key_PageUp: return XK_Prior;
    case Qt::Key_PageDown: return XK_Next;
    case Qt::Key_Print: return XK_Print;
    case Qt::Key_Menu: return XK_Menu;
    default: return NoSymbol;
    }
}

struct GlobalShortcut::Connection {
    Display* display = nullptr;
    ~Connection() {
        if (display) XCloseDisplay(display);
    }
};

GlobalShortcut::GlobalShortcut(QObject* parent) : QObject(parent) {}

GlobalShortcut::~GlobalShortcut() { release(); }

bool GlobalShortcut::active() const { return m_keycode != 0 || (m_portal && m_portal->isBound()); }

bool GlobalShortcut::isPending() const { return m_portal && m_portal->isPending(); }

bool GlobalShortcut::usesPortal(QString* why) {
    const QByteArray choice = qgetenv("HEARSAY_SHORTCUT");
    if (choice == "x11") return false;
    if (choice != "portal" && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) return false;
    return PortalShortcut::available(QDBusConnection::sessionBus(), why);
}

QString GlobalShortcut::mechanism() const {
    if (m_portal && m_portal->isBound())
        return tr("desktop portal (GlobalShortcuts): %1").arg(m_portal->triggerDescription());
    if (isPending()) return tr("desktop portal (GlobalShortcuts): waiting for the desktop's answer");
    if (m_keycode != 0)
        return tr("X11 key grab on %1").arg(QString::fromLocal8Bit(DisplayString(m_connection->display)));
    return m_error.isEmpty() ? tr("no shortcut") : m_error;
}

bool GlobalShortcut::grab(const QString& sequence) {
    release();
    m_error.clear();
    const QKeySequence keys = QKeySequence::fromString(sequence, QKeySequence::PortableText);
    if (keys.isEmpty() || keys.count() != 1) {
        m_error = tr("the shortcut \"%1\" is not one key combination").arg(sequence);
        return false;
    }
    const QKeyCombination combination = keys[0];
    const KeySym sym = shortcutKeysym(combination.key());
    if (sym == NoSymbol) {
        m_error = tr("the key of \"%1\" cannot be a global shortcut (use a letter, digit or function key)").arg(sequence);
        return false;
    }
    QString noPortal;
    if (usesPortal(&noPortal)) {
        if (!m_portal) {
            m_portal = new PortalShortcut(QDBusConnection::sessionBus(), this);
            connect(m_portal, &PortalShortcut::bound, this, &GlobalShortcut::changed);
            connect(m_portal, &PortalShortcut::failed, this, [this](const QString& why) {
                m_error = tr("no global shortcut: %1; bind a key in the desktop's settings to "
                             "`hearsay --dictate toggle`")
                              .arg(why);
                emit changed();
            });
            connect(m_portal, &PortalShortcut::activated, this, [this] {
                if (m_down) return;
                m_down = true;
                emit pressed();
            });
            connect(m_portal, &PortalShortcut::deactivated, this, [this] {
                if (!m_down) return;
                m_down = false;
                emit released();
            });
        }
        m_portal->bind(PortalShortcut::triggerFor(sequence), tr("Start or stop dictation (Hearsay)"));
        return true;
    }
    const char* name = std::getenv("DISPLAY");
    if (!name || !*name) {
        m_error = std::getenv("WAYLAND_DISPLAY")
                      ? tr("no global shortcut: this is Wayland without X11, and %1; bind a key in the desktop's "
                           "settings to `hearsay --dictate toggle`")
                            .arg(noPortal)
                      : tr("no global shortcut: no display ($DISPLAY is not set)");
        return false;
    }
    if (!m_connection) {
        auto connection = std::make_unique<Connection>();
        connection->display = XOpenDisplay(name);
        if (!connection->display) {
            m_error = tr("no global shortcut: cannot open the display %1").arg(QString::fromLocal8Bit(name));
            return false;
        }
        Bool supported = False;
        XkbSetDetectableAutoRepeat(connection->display, True, &supported);  // a held key: no releases until it is let go
        m_connection = std::move(connection);
        m_notifier = new QSocketNotifier(ConnectionNumber(m_connection->display), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &GlobalShortcut::readEvents);
    }
    Display* display = m_connection->display;
    const KeyCode code = XKeysymToKeycode(display, sym);
    if (code == 0) {
        m_error = tr("the key of \"%1\" is not on this keyboard").arg(sequence);
        return false;
    }
    unsigned mods = 0;
    const Qt::KeyboardModifiers qt = combination.keyboardModifiers();
    if (qt & Qt::ShiftModifier) mods |= ShiftMask;
    if (qt & Qt::ControlModifier) mods |= ControlMask;
    if (qt & Qt::AltModifier) mods |= Mod1Mask;
    if (qt & Qt::MetaModifier) mods |= Mod4Mask;
    // The same combination with Caps Lock and Num Lock (Mod2 on common keymaps) on or off.
    const Window root = DefaultRootWindow(display);
    XSync(display, False);
    g_grabError = 0;
    auto previous = XSetErrorHandler(recordError);
    for (unsigned locks : {0u, unsigned(LockMask), unsigned(Mod2Mask), unsigned(LockMask | Mod2Mask)})
        XGrabKey(display, code, mods | locks, root, False, GrabModeAsync, GrabModeAsync);
    XSync(display, False);
    XSetErrorHandler(previous);
    if (g_grabError != 0) {
        for (unsigned locks : {0u, unsigned(LockMask), unsigned(Mod2Mask), unsigned(LockMask | Mod2Mask)})
            XUngrabKey(display, code, mods | locks, root);
        XSync(display, False);
        m_error = g_grabError == BadAccess
                      ? tr("the shortcut %1 is taken by another program; choose another in the settings").arg(sequence)
                      : tr("the shortcut %1 could not be grabbed (X error %2)").arg(sequence).arg(g_grabError);
        return false;
    }
    m_keycode = code;
    m_modifiers = mods;
    return true;
}

void GlobalShortcut::release() {
    if (m_portal) {
        m_portal->close();
        if (m_down) {
            m_down = false;
            emit released();
        }
    }
    if (!m_connection || m_keycode == 0) return;
    Display* display = m_connection->display;
    const Window root = DefaultRootWindow(display);
    for (unsigned locks : {0u, unsigned(LockMask), unsigned(Mod2Mask), unsigned(LockMask | Mod2Mask)})
        XUngrabKey(display, m_keycode, m_modifiers | locks, root);
    XSync(display, False);
    m_keycode = 0;
    if (m_down) {
        m_down = false;
        emit released();
    }
}

void GlobalShortcut::readEvents() {
    Display* display = m_connection->display;
    while (XPending(display) > 0) {
        XEvent event;
        XNextEvent(display, &event);
        if (m_keycode == 0 || event.xkey.keycode != m_keycode) continue;
        if (event.type == KeyPress && !m_down) {
            m_down = true;
            emit pressed();
        } else if (event.type == KeyRelease && m_down) {
            m_down = false;
            emit released();
        }
    }
}

} // namespace hearsay::ui
