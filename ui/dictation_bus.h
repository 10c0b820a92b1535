// The running Hearsay on the session bus (D-Bus): desktops without a global-shortcut portal (sway
// and other wlroots compositors, or any desktop's own key bindings) bind a key to
// `hearsay --dictate toggle|start|stop`, which reaches the running instance here instead of
// starting a second engine. Service io.github.hearsay.Hearsay, object /io/github/hearsay/Hearsay,
// interface io.github.hearsay.Dictation: Toggle, Start, Stop and Raise (each answers the state
// after the request, "recording" or "idle"), and Status.
#pragma once

#include <QDBusConnection>
#include <QObject>
#include <QString>

#include <functional>

namespace hearsay::ui {

class DictationBus : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "io.github.hearsay.Dictation")
public:
    static constexpr const char* kService = "io.github.hearsay.Hearsay";
    static constexpr const char* kPath = "/io/github/hearsay/Hearsay";
    static constexpr const char* kInterface = "io.github.hearsay.Dictation";

    // `recording` says whether dictation runs now (for the answers).
    DictationBus(std::function<bool()> recording, QObject* parent = nullptr);

    // Takes the service name on `bus` and exports this object; false (and *why) when the bus is
    // not there or another instance holds the name.
    bool publish(QDBusConnection bus, QString* why = nullptr);

    // The client side of `hearsay --dictate ACTION` (toggle, start, stop, raise, status): asks the
    // instance on `bus`. Delivered: *answer is its state; otherwise *answer says why.
    enum class Outcome { Delivered, NotRunning, Failed };
    static Outcome request(QDBusConnection bus, const QString& action, QString* answer);

public slots:
    Q_SCRIPTABLE QString Toggle();
    Q_SCRIPTABLE QString Start();
    Q_SCRIPTABLE QString Stop();
    Q_SCRIPTABLE QString Raise();
    Q_SCRIPTABLE QString Status();

signals:
    void toggleRequested();
    void startRequested();
    void stopRequested();
    void raiseRequested();

private:
    std::function<bool()> m_recording;
};

} // namespace hearsay::ui
