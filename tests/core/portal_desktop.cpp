// portal_desktop: the desktop's side of two XDG desktop portals, for the tests that run the real
// xdg-desktop-portal (the frontend every application talks to) on a private session bus. GNOME and
// KDE ship such a backend (xdg-desktop-portal-gnome, -kde) that asks the user and reaches their
// compositor; this one answers as a user who allows, and reports what it is asked on standard
// output, one line each, so that a test can check what reached the desktop:
//   org.freedesktop.impl.portal.RemoteDesktop: "rd-select TYPES PERSIST RESTORE", "rd-start",
//     "keysym KEYSYM STATE" (STATE 1 pressed, 0 released), "session-close PATH";
//   org.freedesktop.impl.portal.GlobalShortcuts: "gs-bind ID TRIGGER DESCRIPTION" for each shortcut.
// Standard input takes "press ID" and "release ID", sent as Activated and Deactivated to every
// shortcut session (a key of the desktop going down and up).
// Options: --refuse-start (the user says no to keyboard access), --no-keyboard (the desktop lends
// no keyboard), --refuse-shortcuts (the user says no to the shortcut), --start-after-ms=N (the
// user answers the keyboard question N ms after it was asked).
#include <QCoreApplication>
#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDBusObjectPath>
#include <QDBusVirtualObject>
#include <QSocketNotifier>
#include <QStringList>
#include <QTimer>

#include <cstdio>
#include <unistd.h>

namespace {

constexpr const char* kPath = "/org/freedesktop/portal/desktop";
constexpr const char* kRemoteDesktop = "org.freedesktop.impl.portal.RemoteDesktop";
constexpr const char* kShortcuts = "org.freedesktop.impl.portal.GlobalShortcuts";

struct Shortcut {
    QString id;
    QVariantMap properties;
};

QDBusArgument& operator<<(QDBusArgument& out, const Shortcut& s) {
    out.beginStructure();
    out << s.id << s.properties;
    out.endStructure();
    return out;
}

const QDBusArgument& operator>>(const QDBusArgument& in, Shortcut& s) {
    in.beginStructure();
    in >> s.id >> s.properties;
    in.endStructure();
    return in;
}

} // namespace

Q_DECLARE_METATYPE(Shortcut)

namespace {

void say(const QString& line) {
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

class Desktop : public QDBusVirtualObject {
public:
    Desktop(QDBusConnection connection, QStringList options) : m_connection(connection), m_options(options) {}

    QString introspect(const QString&) const override { return {}; }

    bool handleMessage(const QDBusMessage& message, const QDBusConnection&) override {
        const QString interface = message.interface(), member = message.member();
        const QVariantList args = message.arguments();
        if (interface == "org.freedesktop.DBus.Properties") return properties(message);
        if (interface == "org.freedesktop.impl.portal.Session" && member == "Close") {
            say("session-close " + message.path());
            m_shortcutSessions.removeAll(message.path());
            return reply(message, {});
        }
        if (interface == kRemoteDesktop) {
            if (member == "CreateSession") return response(message, 0, {});
            if (member == "SelectDevices") {
                const QVariantMap options = qdbus_cast<QVariantMap>(args.value(3));
                say(QString("rd-select %1 %2 %3")
                        .arg(options.value("types").toUInt())
                        .arg(options.value("persist_mode").toUInt())
                        .arg(options.value("restore_token", "-").toString()));
                return response(message, 0, {});
            }
            if (member == "Start") {
                say("rd-start");
                const uint code = m_options.contains("--refuse-start") ? 1u : 0u;
                const uint devices = m_options.contains("--no-keyboard") ? 2u : 1u;  // 2: a pointer only
                const QVariantMap results = code != 0 ? QVariantMap()
                                                      : QVariantMap{{"devices", devices},
                                                                    {"restore_token", QString("token-%1").arg(++m_tokens)}};
                const int after = optionValue("--start-after-ms=");
                if (after <= 0) return response(message, code, results);
                QTimer::singleShot(after, [this, message, code, results] {
                    say("rd-answer");
                    response(message, code, results);
                });
                return true;
            }
            if (member == "NotifyKeyboardKeysym") {
                say(QString("keysym %1 %2").arg(args.value(2).toInt()).arg(args.value(3).toUInt()));
                return reply(message, {});
            }
        }
        if (interface == kShortcuts) {
            if (member == "CreateSession") {
                m_shortcutSessions << qvariant_cast<QDBusObjectPath>(args.value(1)).path();
                return response(message, 0, {});
            }
            if (member == "BindShortcuts" || member == "ListShortcuts") {
                if (member == "BindShortcuts") {
                    m_bound.clear();
                    const QDBusArgument list = args.value(2).value<QDBusArgument>();
                    list >> m_bound;
                    for (Shortcut& s : m_bound) {
                        say(QString("gs-bind %1 %2 %3")
                                .arg(s.id, s.properties.value("preferred_trigger").toString(),
                                     s.properties.value("description").toString()));
                        s.properties = {{"description", s.properties.value("description")},
                                        {"trigger_description", s.properties.value("preferred_trigger")}};
                    }
                    if (m_options.contains("--refuse-shortcuts")) return response(message, 1, {});
                }
                return response(message, 0, {{"shortcuts", QVariant::fromValue(m_bound)}});
            }
        }
        m_connection.send(message.createErrorReply(QDBusError::UnknownMethod, interface + "." + member));
        return true;
    }

    // A key of the desktop: Activated (down) or Deactivated (up) for shortcut `id`.
    void key(const QString& id, bool down) {
        for (const QString& session : m_shortcutSessions) {
            QDBusMessage signal = QDBusMessage::createSignal(kPath, kShortcuts, down ? "Activated" : "Deactivated");
            signal << QVariant::fromValue(QDBusObjectPath(session)) << id << quint64(++m_time) << QVariantMap();
            m_connection.send(signal);
        }
    }

private:
    // The number in option `prefix`N, or 0.
    int optionValue(const QString& prefix) const {
        for (const QString& option : m_options)
            if (option.startsWith(prefix)) return option.mid(prefix.size()).toInt();
        return 0;
    }
    bool reply(const QDBusMessage& message, const QVariantList& values) {
        m_connection.send(message.createReply(values));
        return true;
    }
    bool response(const QDBusMessage& message, uint code, const QVariantMap& results) {
        return reply(message, {code, results});
    }
    bool properties(const QDBusMessage& message) {
        const QString interface = message.arguments().value(0).toString();
        QVariantMap values{{"version", 1u}};
        if (interface == kRemoteDesktop) values["AvailableDeviceTypes"] = 7u;  // keyboard, pointer, touch
        if (message.member() == "GetAll") return reply(message, {values});
        if (message.member() == "Get") {
            const QString name = message.arguments().value(1).toString();
            if (!values.contains(name)) {
                m_connection.send(message.createErrorReply(QDBusError::UnknownProperty, name));
                return true;
            }
            return reply(message, {QVariant::fromValue(QDBusVariant(values[name]))});
        }
        return false;
    }

    QDBusConnection m_connection;
    QStringList m_options;
    QStringList m_shortcutSessions;
    QList<Shortcut> m_bound;
    int m_tokens = 0;
    quint64 m_time = 0;
};

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    qDBusRegisterMetaType<Shortcut>();
    qDBusRegisterMetaType<QList<Shortcut>>();
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        std::fprintf(stderr, "portal_desktop: no session bus\n");
        return 1;
    }
    Desktop desktop(bus, app.arguments().mid(1));
    if (!bus.registerVirtualObject(kPath, &desktop, QDBusConnection::SubPath)) {
        std::fprintf(stderr, "portal_desktop: cannot register %s\n", kPath);
        return 1;
    }
    if (!bus.registerService("org.freedesktop.impl.portal.desktop.hearsaytest")) {
        std::fprintf(stderr, "portal_desktop: cannot own its name: %s\n", qPrintable(bus.lastError().message()));
        return 1;
    }
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QByteArray pending;
    QObject::connect(&input, &QSocketNotifier::activated, [&] {
        char bytes[256];
        const ssize_t got = read(STDIN_FILENO, bytes, sizeof bytes);
        if (got <= 0) {
            QCoreApplication::quit();  // the test has gone
            return;
        }
        pending.append(bytes, got);
        for (qsizetype end; (end = pending.indexOf('\n')) >= 0; pending.remove(0, end + 1)) {
            const QStringList words = QString::fromUtf8(pending.left(end)).trimmed().split(' ');
            if (words.size() == 2 && (words[0] == "press" || words[0] == "release"))
                desktop.key(words[1], words[0] == "press");
        }
    });
    say("ready");
    return app.exec();
}
