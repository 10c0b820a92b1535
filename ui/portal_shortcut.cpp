// The GlobalShortcuts portal (see portal_shortcut.h).
#include "ui/portal_shortcut.h"

#include "ui/global_shortcut.h"

#include <QDBusArgument>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDBusObjectPath>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QKeySequence>

#include <X11/Xlib.h>

namespace hearsay::ui {
namespace {

constexpr const char* kPortal = "org.freedesktop.portal.Desktop";
constexpr const char* kPath = "/org/freedesktop/portal/desktop";
constexpr const char* kInterface = "org.freedesktop.portal.GlobalShortcuts";

// One shortcut as the portal speaks of it: an id and its properties (a(sa{sv})).
struct ShortcutEntry {
    QString id;
    QVariantMap properties;
};

QDBusArgument& operator<<(QDBusArgument& out, const ShortcutEntry& entry) {
    out.beginStructure();
    out << entry.id << entry.properties;
    out.endStructure();
    return out;
}

const QDBusArgument& operator>>(const QDBusArgument& in, ShortcutEntry& entry) {
    in.beginStructure();
    in >> entry.id >> entry.properties;
    in.endStructure();
    return in;
}

} // namespace
} // namespace hearsay::ui

Q_DECLARE_METATYPE(hearsay::ui::ShortcutEntry)

namespace hearsay::ui {
namespace {

void registerTypes() {
    static const bool done = [] {
        qDBusRegisterMetaType<ShortcutEntry>();
        qDBusRegisterMetaType<QList<ShortcutEntry>>();
        return true;
    }();
    (void)done;
}

// The XDG shortcut spec's name for Qt's key (an XKB key symbol name); empty for one that cannot be
// a shortcut.
QString keyName(int key) {
    const KeySym sym = shortcutKeysym(key);
    const char* name = sym == NoSymbol ? nullptr : XKeysymToString(sym);
    return name ? QString::fromLatin1(name) : QString();
}

// A handle token no other request or session of this process has used: the portal makes the
// object paths of requests and sessions from the caller's bus name and the token, and a session
// still closing (Close is not waited for) would otherwise share its path with the next one.
QString freshToken(const char* kind) {
    static int count = 0;  // GUI thread only
    return QString("hearsay_%1_%2").arg(kind).arg(++count);
}

} // namespace

PortalShortcut::PortalShortcut(QDBusConnection bus, QObject* parent) : QObject(parent), m_bus(std::move(bus)) {
    registerTypes();
    m_bus.connect(kPortal, kPath, kInterface, "Activated", this, SLOT(onActivated(QDBusMessage)));
    m_bus.connect(kPortal, kPath, kInterface, "Deactivated", this, SLOT(onDeactivated(QDBusMessage)));
}

PortalShortcut::~PortalShortcut() { close(); }

bool PortalShortcut::available(const QDBusConnection& bus, QString* why) {
    if (!bus.isConnected()) {
        if (why) *why = tr("no session bus");
        return false;
    }
    QDBusMessage get = QDBusMessage::createMethodCall(kPortal, kPath, "org.freedesktop.DBus.Properties", "Get");
    get << QString(kInterface) << QString("version");
    const QDBusMessage reply = bus.call(get, QDBus::Block, kProbeTimeoutMs);
    if (reply.type() == QDBusMessage::ReplyMessage) return true;
    if (why) {
        *why = reply.errorName() == "org.freedesktop.DBus.Error.ServiceUnknown"
                   ? tr("no desktop portal runs on the session bus")
                   : tr("the desktop portal offers no GlobalShortcuts interface (%1)").arg(reply.errorMessage());
    }
    return false;
}

QString PortalShortcut::triggerFor(const QString& sequence) {
    const QKeySequence keys = QKeySequence::fromString(sequence, QKeySequence::PortableText);
    if (keys.count() != 1) return {};
    const QString key = keyName(keys[0].key());
    if (key.isEmpty()) return {};
    const Qt::KeyboardModifiers mods = keys[0].keyboardModifiers();
    QStringList parts;
    if (mods & Qt::ControlModifier) parts << "CTRL";
    if (mods & Qt::AltModifier) parts << "ALT";
    if (mods & Qt::ShiftModifier) parts << "SHIFT";
    if (mods & Qt::MetaModifier) parts << "LOGO";
    parts << key;
    return parts.join('+');
}

void PortalShortcut::bind(const QString& trigger, const QString& description) {
    m_wantedTrigger = trigger;
    m_description = description;
    m_trigger.clear();
    if (m_session.isEmpty()) {
        m_stage = Stage::CreatingSession;
        request("CreateSession", {}, {{"session_handle_token", freshToken("session")}});
        return;
    }
    m_stage = Stage::Binding;
    const QList<ShortcutEntry> shortcuts{
        {kShortcutId, {{"description", m_description}, {"preferred_trigger", m_wantedTrigger}}}};
    const QVariantList args{QVariant::fromValue(QDBusObjectPath(m_session)), QVariant::fromValue(shortcuts), QString()};
    request("BindShortcuts", args, {});
}

void PortalShortcut::listenOnRequest(const QString& path) {
    if (!m_requestPath.isEmpty())
        m_bus.disconnect(kPortal, m_requestPath, "org.freedesktop.portal.Request", "Response", this,
                         SLOT(onResponse(QDBusMessage)));
    m_requestPath = path;
    if (!path.isEmpty())
        m_bus.connect(kPortal, path, "org.freedesktop.portal.Request", "Response", this,
                      SLOT(onResponse(QDBusMessage)));
}

void PortalShortcut::close() {
    listenOnRequest({});
    if (!m_session.isEmpty()) {
        m_bus.asyncCall(QDBusMessage::createMethodCall(kPortal, m_session, "org.freedesktop.portal.Session", "Close"));
        m_session.clear();
    }
    m_stage = Stage::Idle;
}

void PortalShortcut::request(const QString& method, QVariantList args, QVariantMap options) {
    const QString token = freshToken("request");
    QString sender = m_bus.baseService().mid(1);  // ":1.42" -> "1_42"
    sender.replace('.', '_');
    // Listening before the call: the answer may come before the call returns.
    listenOnRequest(QString("%1/request/%2/%3").arg(kPath, sender, token));
    options["handle_token"] = token;
    QDBusMessage call = QDBusMessage::createMethodCall(kPortal, kPath, kInterface, method);
    args << options;
    call.setArguments(args);
    auto* watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, watcher, method] {
        watcher->deleteLater();
        const QDBusPendingReply<QDBusObjectPath> reply = *watcher;
        if (reply.isError()) fail(tr("%1: %2").arg(method, reply.error().message()));
    });
}

void PortalShortcut::onResponse(const QDBusMessage& message) {
    if (message.path() != m_requestPath) return;
    const QVariantList args = message.arguments();
    const uint code = args.value(0).toUInt();
    const QVariantMap results = qdbus_cast<QVariantMap>(args.value(1));
    if (code != 0) {
        fail(code == 1 ? tr("the desktop's question about the shortcut was answered no")
                       : tr("the desktop ended the request (answer %1)").arg(code));
        return;
    }
    if (m_stage == Stage::CreatingSession) {
        m_session = results.value("session_handle").toString();
        if (m_session.isEmpty()) {
            fail(tr("the desktop opened no session"));
            return;
        }
        bind(m_wantedTrigger, m_description);
        return;
    }
    if (m_stage != Stage::Binding) return;
    QList<ShortcutEntry> shortcuts;
    results.value("shortcuts").value<QDBusArgument>() >> shortcuts;
    for (const ShortcutEntry& entry : shortcuts) {
        if (entry.id != kShortcutId) continue;
        m_trigger = entry.properties.value("trigger_description").toString();
        m_stage = Stage::Bound;
        emit bound(m_trigger);
        return;
    }
    fail(tr("the desktop did not bind the shortcut"));
}

void PortalShortcut::fail(const QString& why) {
    close();
    emit failed(why);
}

bool PortalShortcut::isOurs(const QDBusMessage& message) const {
    const QVariantList args = message.arguments();
    return isBound() && qvariant_cast<QDBusObjectPath>(args.value(0)).path() == m_session &&
           args.value(1).toString() == kShortcutId;
}

void PortalShortcut::onActivated(const QDBusMessage& message) {
    if (isOurs(message)) emit activated();
}

void PortalShortcut::onDeactivated(const QDBusMessage& message) {
    if (isOurs(message)) emit deactivated();
}

} // namespace hearsay::ui
