// The XDG desktop portal as GNOME and KDE sessions run it, on a private session bus of the test's
// own: a dbus-daemon, the real xdg-desktop-portal (the frontend every application talks to, Debian
// package xdg-desktop-portal), and tests/core/portal_desktop as the desktop's backend in place of
// xdg-desktop-portal-gnome or -kde (which need their compositor and ask the user). The frontend
// picks the backend by XDG_CURRENT_DESKTOP and a .portal file in XDG_DESKTOP_PORTAL_DIR, as it
// picks GNOME's on GNOME. What the backend is asked comes back as lines (portal_desktop.cpp).
#pragma once

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QThread>

namespace hearsay::test {

class PortalBus {
public:
    static constexpr const char* kFrontend = "/usr/libexec/xdg-desktop-portal";
    static constexpr int kStartMs = 20000;

    ~PortalBus() {
        if (m_probe) QDBusConnection::disconnectFromBus(m_probeName);
        for (QProcess* p : {&m_frontend, &m_desktop, &m_bus}) {
            if (p->state() == QProcess::NotRunning) continue;
            p->terminate();
            if (!p->waitForFinished(10000)) {
                p->kill();
                p->waitForFinished(10000);
            }
        }
    }

    // Why the portal cannot run here, or empty.
    static QString missing() {
        if (!QFile::exists(kFrontend)) return "xdg-desktop-portal is not installed (Debian package xdg-desktop-portal; scripts/setup.sh)";
        return {};
    }

    // Starts the bus, the backend (`desktopPath` with `desktopOptions`) and the frontend in `dir`.
    // Empty when the portal answers on the bus; otherwise what went wrong.
    QString start(const QString& dir, const QString& desktopPath, const QStringList& desktopOptions = {}) {
        if (const QString failed = startBus(QProcessEnvironment::systemEnvironment()); !failed.isEmpty()) return failed;

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP"}) env.remove(name);
        env.insert("DBUS_SESSION_BUS_ADDRESS", m_address);
        m_desktop.setProcessEnvironment(env);
        m_desktop.start(desktopPath, desktopOptions);
        if (!m_desktop.waitForStarted(kStartMs)) return "portal_desktop did not start: " + m_desktop.errorString();
        if (!waitForLine("ready", kStartMs)) return "portal_desktop did not start: " + QString::fromUtf8(m_desktop.readAllStandardError());

        const QString portals = dir + "/portals";
        QDir().mkpath(portals);
        QFile file(portals + "/hearsaytest.portal");
        if (!file.open(QIODevice::WriteOnly)) return "cannot write " + file.fileName();
        file.write("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.hearsaytest\n"
                   "Interfaces=org.freedesktop.impl.portal.RemoteDesktop;org.freedesktop.impl.portal.GlobalShortcuts;\n"
                   "UseIn=hearsaytest\n");
        file.close();
        env.insert("XDG_CURRENT_DESKTOP", "hearsaytest");
        env.insert("XDG_DESKTOP_PORTAL_DIR", portals);
        m_frontend.setProcessEnvironment(env);
        m_frontend.setProcessChannelMode(QProcess::MergedChannels);
        m_frontend.start(kFrontend, {});
        if (!m_frontend.waitForStarted(kStartMs)) return "xdg-desktop-portal did not start: " + m_frontend.errorString();
        m_probeName = "hearsay-portal-probe-" + QString::number(quintptr(this));
        QDBusConnection probe = QDBusConnection::connectToBus(m_address, m_probeName);
        m_probe = true;
        QElapsedTimer clock;
        clock.start();
        while (!probe.interface()->isServiceRegistered("org.freedesktop.portal.Desktop")) {
            if (m_frontend.state() != QProcess::Running)
                return "xdg-desktop-portal ended: " + QString::fromUtf8(m_frontend.readAll());
            if (clock.elapsed() > kStartMs) return "xdg-desktop-portal did not take its name on the bus";
            QThread::msleep(50);
        }
        return {};
    }

    // The bus alone. The frontend, started by the bus on demand (its D-Bus service file) with the
    // bus's environment, finds no backend there (the empty portal directory `emptyDir`): a
    // desktop whose portal lacks RemoteDesktop and GlobalShortcuts. Empty when it started.
    QString startWithoutBackend(const QString& emptyDir) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DESKTOP_PORTAL_DIR", emptyDir);
        env.insert("XDG_CURRENT_DESKTOP", "hearsaytest");
        return startBus(env);
    }

    const QString& address() const { return m_address; }

    // A client on this bus: the variables a program of the desktop session has (a Wayland
    // session on `desktop`, "GNOME" or "KDE").
    QProcessEnvironment clientEnvironment(const QString& desktop) const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "HEARSAY_TYPER"}) env.remove(name);
        env.insert("DBUS_SESSION_BUS_ADDRESS", m_address);
        env.insert("WAYLAND_DISPLAY", "wayland-portal-test");  // a Wayland session; nothing connects to it
        env.insert("XDG_CURRENT_DESKTOP", desktop);
        return env;
    }

    // Waits up to `ms` for the backend to say a line that starts with `prefix`; the lines said
    // so far are in said().
    bool waitForLine(const QString& prefix, int ms) {
        QElapsedTimer clock;
        clock.start();
        for (;;) {
            while (m_desktop.canReadLine()) m_said << QString::fromUtf8(m_desktop.readLine()).trimmed();
            for (int i = m_checked; i < m_said.size(); ++i) {
                if (m_said[i].startsWith(prefix)) {
                    m_checked = i + 1;
                    return true;
                }
            }
            const qint64 left = ms - clock.elapsed();
            if (left <= 0 || m_desktop.state() == QProcess::NotRunning) return false;
            m_desktop.waitForReadyRead(int(std::min<qint64>(left, 100)));
        }
    }
    // Everything the backend said (read up to now).
    QStringList said() {
        while (m_desktop.canReadLine() || m_desktop.waitForReadyRead(200)) {
            while (m_desktop.canReadLine()) m_said << QString::fromUtf8(m_desktop.readLine()).trimmed();
        }
        return m_said;
    }
    // A line to the backend: "press ID" or "release ID".
    void tellDesktop(const QString& line) {
        m_desktop.write((line + "\n").toUtf8());
        m_desktop.waitForBytesWritten(5000);
    }

private:
    QString startBus(const QProcessEnvironment& env) {
        m_bus.setProcessEnvironment(env);
        m_bus.start("dbus-daemon", {"--session", "--nofork", "--print-address=1"});
        if (!m_bus.waitForStarted(kStartMs)) return "dbus-daemon did not start: " + m_bus.errorString();
        while (!m_bus.canReadLine() && m_bus.waitForReadyRead(kStartMs)) {
        }
        m_address = QString::fromUtf8(m_bus.readLine()).trimmed();
        return m_address.isEmpty() ? "dbus-daemon printed no address" : QString();
    }

    QProcess m_bus, m_desktop, m_frontend;
    QString m_address, m_probeName;
    bool m_probe = false;
    QStringList m_said;
    int m_checked = 0;  // waitForLine() has looked at the lines before this one
};

} // namespace hearsay::test
