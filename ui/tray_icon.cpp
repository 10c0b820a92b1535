// The system tray icon (see tray_icon.h).
#include "ui/tray_icon.h"

#include <QAction>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QSystemTrayIcon>

namespace hearsay::ui {
namespace {

QString stateName(TrayIcon::State state) {
    switch (state) {
    case TrayIcon::State::Listening: return TrayIcon::tr("listening");
    case TrayIcon::State::Busy: return TrayIcon::tr("busy (transcribing)");
    case TrayIcon::State::Idle: break;
    }
    return TrayIcon::tr("idle");
}

// A microphone: capsule, cradle and stand, on a `side`-pixel square.
void paintMicrophone(QPainter& p, qreal side, const QColor& colour) {
    const qreal u = side / 16.0;
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawRoundedRect(QRectF(5.5 * u, 1.5 * u, 5 * u, 8.5 * u), 2.5 * u, 2.5 * u);
    QPen pen(colour, 1.3 * u, Qt::SolidLine, Qt::RoundCap);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    QPainterPath cradle;
    cradle.moveTo(3.5 * u, 7.5 * u);
    cradle.cubicTo(3.5 * u, 13 * u, 12.5 * u, 13 * u, 12.5 * u, 7.5 * u);
    p.drawPath(cradle);
    p.drawLine(QPointF(8 * u, 12 * u), QPointF(8 * u, 14.5 * u));
    p.drawLine(QPointF(5.5 * u, 14.5 * u), QPointF(10.5 * u, 14.5 * u));
}

} // namespace

TrayIcon::TrayIcon(QObject* parent) : QObject(parent) {
    m_menu = new QMenu;
    m_startStop = m_menu->addAction(QString());
    m_startStop->setObjectName("trayStartStop");
    connect(m_startStop, &QAction::triggered, this, [this] {
        if (m_state == State::Listening) emit stopRequested();
        else emit startRequested();
    });
    m_copy = m_menu->addAction(tr("&Copy last dictation"), this, &TrayIcon::copyRequested);
    m_copy->setObjectName("trayCopy");
    m_copy->setEnabled(false);
    m_menu->addSeparator();
    m_show = m_menu->addAction(tr("&Show Hearsay"), this, &TrayIcon::showRequested);
    m_show->setObjectName("trayShow");
    m_quit = m_menu->addAction(tr("&Quit"), this, &TrayIcon::quitRequested);
    m_quit->setObjectName("trayQuit");
    update();
}

TrayIcon::~TrayIcon() {
    delete m_tray;
    delete m_menu;
}

bool TrayIcon::available() { return QSystemTrayIcon::isSystemTrayAvailable(); }

QString TrayIcon::unavailableReason() {
    if (available()) return QString();
    return tr("this desktop has no system tray (no status notifier host or X11 tray is running)");
}

QIcon TrayIcon::iconFor(State state, int size) {
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const qreal u = size / 16.0;
    switch (state) {
    case State::Idle: paintMicrophone(p, size, QColor(0x70, 0x78, 0x80)); break;
    case State::Listening:
        // Red, on a pale ring: the microphone is open.
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0xd9, 0x30, 0x25, 70));
        p.drawEllipse(QRectF(0.2 * u, 0.2 * u, 15.6 * u, 15.6 * u));
        paintMicrophone(p, size, QColor(0xd9, 0x30, 0x25));
        break;
    case State::Busy: {
        // Amber, with three dots in the corner: working on what was heard.
        paintMicrophone(p, size, QColor(0xc8, 0x86, 0x10));
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x30, 0x30, 0x30));
        for (int i = 0; i < 3; ++i) p.drawEllipse(QPointF((10.2 + 2.2 * i) * u, 1.8 * u), 1.0 * u, 1.0 * u);
        break;
    }
    }
    p.end();
    return QIcon(pixmap);
}

void TrayIcon::setState(State state, bool canStart) {
    m_state = state;
    m_canStart = canStart;
    update();
}

void TrayIcon::setShortcut(const QString& description) {
    m_shortcut = description;
    update();
}

void TrayIcon::setHasLastText(bool has) { m_copy->setEnabled(has); }

void TrayIcon::setVisible(bool visible) {
    if (visible && !m_tray && available()) {
        m_tray = new QSystemTrayIcon;
        m_tray->setContextMenu(m_menu);
        // A click on the icon shows the window (the menu is on the other button).
        connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
            if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick) emit showRequested();
        });
        update();
    }
    if (m_tray) m_tray->setVisible(visible);
}

bool TrayIcon::isVisible() const { return m_tray && m_tray->isVisible(); }

QString TrayIcon::toolTip() const {
    return tr("Hearsay: %1\nShortcut: %2").arg(stateName(m_state), m_shortcut.isEmpty() ? tr("none") : m_shortcut);
}

void TrayIcon::update() {
    const bool listening = m_state == State::Listening;
    m_startStop->setText(listening ? tr("S&top dictation") : tr("&Start dictation"));
    m_startStop->setEnabled(listening || (m_state == State::Idle && m_canStart));
    if (m_tray) {
        m_tray->setIcon(iconFor(m_state));
        m_tray->setToolTip(toolTip());
    }
}

} // namespace hearsay::ui
