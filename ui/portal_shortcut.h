// A global shortcut through the XDG desktop portal's GlobalShortcuts interface: how a Wayland
// program gets a key that works whichever window has the focus (GNOME 48 and later, KDE Plasma
// 5.27 and later, Hyprland). Hearsay asks the desktop to bind one shortcut, "dictate", with the
// user's combination as the preferred trigger; the desktop may ask the user, and has the last word
// on the keys (it says which in its answer). Activated and Deactivated (the key going down and
// up, where the desktop reports both) become activated() and deactivated().
//
// Every step is asynchronous: a request's answer comes as a Response signal on a request object
// whose path is known before the call (the portal's handle_token convention).
#pragma once

#include <QDBusConnection>
#include <QObject>
#include <QString>
#include <QVariantMap>

class QDBusMessage;

namespace hearsay::ui {

class PortalShortcut : public QObject {
    Q_OBJECT
public:
    static constexpr int kProbeTimeoutMs = 5000;  // the property read of available()
    static constexpr const char* kShortcutId = "dictate";

    explicit PortalShortcut(QDBusConnection bus, QObject* parent = nullptr);
    ~PortalShortcut() override;

    // Whether the portal on `bus` offers GlobalShortcuts; false with `why` in one line otherwise.
    static bool available(const QDBusConnection& bus, QString* why = nullptr);

    // Asks the desktop to bind the shortcut with `trigger` preferred (XDG shortcut text:
    // "CTRL+ALT+d"), in place of any binding before; bound() or failed() follows.
    void bind(const QString& trigger, const QString& description);
    // Ends the binding (the portal session).
    void close();
    bool isBound() const { return m_stage == Stage::Bound; }
    bool isPending() const { return m_stage == Stage::CreatingSession || m_stage == Stage::Binding; }
    // The desktop's words for the keys it bound ("Ctrl+Alt+D").
    QString triggerDescription() const { return m_trigger; }

    // Qt's key combination ("Ctrl+Alt+D") as XDG shortcut text ("CTRL+ALT+d"); empty when the
    // key has no name the desktops know.
    static QString triggerFor(const QString& sequence);

signals:
    void bound(const QString& triggerDescription);
    void failed(const QString& why);
    void activated();
    void deactivated();

private slots:
    void onResponse(const QDBusMessage& message);
    void onActivated(const QDBusMessage& message);
    void onDeactivated(const QDBusMessage& message);

private:
    enum class Stage { Idle, CreatingSession, Binding, Bound };
    // Calls `method` of GlobalShortcuts with `args` and, last, `options` plus a fresh handle_token;
    // the answer goes to onResponse().
    void request(const QString& method, QVariantList args, QVariantMap options);
    void fail(const QString& why);
    // Takes the Response of the request at `path` (none when empty) instead of the last one's.
    void listenOnRequest(const QString& path);
    // Whether an Activated or Deactivated signal is for this binding.
    bool isOurs(const QDBusMessage& message) const;

    QDBusConnection m_bus;
    Stage m_stage = Stage::Idle;
    QString m_requestPath, m_session, m_trigger, m_wantedTrigger, m_description;
};

} // namespace hearsay::ui
