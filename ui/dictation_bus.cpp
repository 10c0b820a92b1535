// Hearsay's D-Bus service and its client (see dictation_bus.h).
#include "ui/dictation_bus.h"

#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusReply>

namespace hearsay::ui {

DictationBus::DictationBus(std::function<bool()> recording, QObject* parent)
    : QObject(parent), m_recording(std::move(recording)) {}

bool DictationBus::publish(QDBusConnection bus, QString* why) {
    auto fail = [why](QString reason) {
        if (why) *why = std::move(reason);
        return false;
    };
    if (!bus.isConnected()) return fail(tr("no session bus (%1)").arg(bus.lastError().message()));
    if (!bus.registerService(kService)) {
        return fail(tr("another Hearsay holds %1 on the session bus").arg(QString::fromLatin1(kService)));
    }
    if (!bus.registerObject(kPath, this, QDBusConnection::ExportScriptableSlots)) {
        bus.unregisterService(kService);
        return fail(tr("cannot export %1 on the session bus").arg(QString::fromLatin1(kPath)));
    }
    return true;
}

DictationBus::Outcome DictationBus::request(QDBusConnection bus, const QString& action, QString* answer) {
    static const QStringList kActions = {"toggle", "start", "stop", "raise", "status"};
    if (!kActions.contains(action)) {
        *answer = tr("unknown action \"%1\" (toggle, start, stop, raise or status)").arg(action);
        return Outcome::Failed;
    }
    if (!bus.isConnected()) {
        *answer = tr("no session bus, so no running Hearsay can be reached: %1").arg(bus.lastError().message());
        return Outcome::NotRunning;
    }
    if (!bus.interface()->isServiceRegistered(kService)) {
        *answer = tr("Hearsay is not running");
        return Outcome::NotRunning;
    }
    QString method = action;
    method[0] = method[0].toUpper();
    auto call = QDBusMessage::createMethodCall(kService, kPath, kInterface, method);
    const QDBusReply<QString> reply = bus.call(call, QDBus::Block, 5000);
    if (!reply.isValid()) {
        *answer = tr("the running Hearsay did not answer: %1").arg(reply.error().message());
        return Outcome::Failed;
    }
    *answer = reply.value();
    return Outcome::Delivered;
}

// The answers are the state the request leads to; the window acts on the signal right after
// (queued for the bus's caller, synchronous here).
QString DictationBus::Toggle() {
    const bool was = m_recording();
    emit toggleRequested();
    return was ? QStringLiteral("idle") : QStringLiteral("recording");
}

QString DictationBus::Start() {
    if (!m_recording()) emit startRequested();
    return QStringLiteral("recording");
}

QString DictationBus::Stop() {
    if (m_recording()) emit stopRequested();
    return QStringLiteral("idle");
}

QString DictationBus::Raise() {
    emit raiseRequested();
    return Status();
}

QString DictationBus::Status() { return m_recording() ? QStringLiteral("recording") : QStringLiteral("idle"); }

} // namespace hearsay::ui
