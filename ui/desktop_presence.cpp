// The tray icon and the dictation indicator, following the main window (see desktop_presence.h).
#include "ui/desktop_presence.h"

#include "ui/dictate_anywhere.h"
#include "ui/dictate_anywhere_panel.h"
#include "ui/dictation_indicator.h"
#include "ui/main_window.h"
#include "ui/message_bar.h"
#include "ui/tray_icon.h"

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QSettings>
#include <QWindow>

namespace hearsay::ui {

DesktopPresence::DesktopPresence(MainWindow* window, QSettings& settings)
    : QObject(window), m_window(window), m_settings(settings) {
    m_tray = new TrayIcon(this);
    m_indicator = new DictationIndicator;  // a window of its own, not a child of the main window
    if (const QVariant at = m_settings.value("anywhere/indicatorPosition"); at.isValid())
        m_indicator->setPreferredPosition(at.toPoint());
    connect(m_indicator, &DictationIndicator::moved, this,
            [this](const QPoint& at) { m_settings.setValue("anywhere/indicatorPosition", at); });
    connect(m_indicator, &DictationIndicator::dismissed, this, [this] { m_dismissed = true; });
    m_linger.setSingleShot(true);
    connect(&m_linger, &QTimer::timeout, this, [this] {
        m_lingering = false;
        updateIndicator();
    });

    DictateAnywhere* anywhere = window->dictateAnywhere();
    connect(anywhere, &DictateAnywhere::statusChanged, this, &DesktopPresence::applySettings);
    connect(anywhere, &DictateAnywhere::typingFailed, this, [this](const QString& why) {
        m_typingFailed = true;
        m_indicator->setState(DictationIndicator::State::Failed, why);
        updateIndicator();
    });
    connect(window, &MainWindow::stateChanged, this, &DesktopPresence::windowStateChanged);
    connect(window, &MainWindow::tentativeShown, m_indicator, &DictationIndicator::setTentative);
    connect(window, &MainWindow::inputLevelShown, m_indicator, &DictationIndicator::setLevel);
    connect(window, &MainWindow::committedShown, this, [this](const QString& text) {
        m_runText += QString::fromStdString(m_spacing.next(text.toStdString()));
        m_indicator->setRunText(m_runText);
        m_tray->setHasLastText(!m_runText.isEmpty());
    });
    // Queued: QApplication::activeWindow() follows the focus window once the change is handled.
    connect(qApp, &QGuiApplication::focusWindowChanged, this, &DesktopPresence::updateIndicator, Qt::QueuedConnection);

    connect(m_tray, &TrayIcon::startRequested, this, [this] {
        if (!m_window->isBusy()) m_window->startDictation();
    });
    connect(m_tray, &TrayIcon::stopRequested, m_window, &MainWindow::stopDictation);
    connect(m_tray, &TrayIcon::copyRequested, this, [this] {
        if (!m_runText.isEmpty()) QGuiApplication::clipboard()->setText(m_runText);
    });
    connect(m_tray, &TrayIcon::showRequested, this, [this] {
        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
    });
    connect(m_tray, &TrayIcon::quitRequested, this, &DesktopPresence::quit);

    // Started hidden (showAtStart) before the desktop had a tray: one that appears keeps the window
    // hidden; none within kTrayWaitMs shows it.
    m_trayWait.setInterval(kTrayPollMs);
    connect(&m_trayWait, &QTimer::timeout, this, [this] {
        m_trayWaited += kTrayPollMs;
        if (TrayIcon::available()) {
            m_trayWait.stop();
            refreshTray();
        } else if (m_trayWaited >= kTrayWaitMs || m_window->isVisible()) {
            m_trayWait.stop();
            if (m_window->isVisible()) return;  // shown meanwhile (hearsay --dictate raise)
            m_startedHidden = false;
            m_window->show();
            m_window->messageBar()->showMessage(MessageBar::Kind::Information,
                                                tr("Hearsay was to start hidden in the tray, but this desktop has no "
                                                   "system tray: the window is shown instead."));
        }
    });

    QString noIndicator;  // the platform does not change while Hearsay runs
    const bool indicator = DictationIndicator::showsWithoutFocus(QGuiApplication::platformName(), &noIndicator);
    window->dictateAnywherePanel()->setIndicatorAvailable(indicator, noIndicator);

    window->installEventFilter(this);
    applySettings();
    windowStateChanged();
    refreshTray();
}

DesktopPresence::~DesktopPresence() {
    disconnect(qApp, nullptr, this, nullptr);
    delete m_indicator;
}

void DesktopPresence::refreshTray() {
    m_window->dictateAnywherePanel()->setTrayAvailable(TrayIcon::available(), TrayIcon::unavailableReason());
    m_tray->setVisible(true);  // where the desktop has a tray
}

bool DesktopPresence::closeHidesWindow() const { return m_anywhere.keepInTray && TrayIcon::available(); }

void DesktopPresence::applySettings() {
    DictateAnywhere* anywhere = m_window->dictateAnywhere();
    m_anywhere = anywhere->settings();
    QString shortcut;
    if (m_anywhere.shortcut.isEmpty()) shortcut = tr("none (set one in the Dictate anywhere panel)");
    else if (anywhere->shortcut().isPending())
        shortcut = tr("%1, waiting for the desktop's answer").arg(m_anywhere.shortcut);
    else if (!anywhere->shortcut().active())
        shortcut = tr("%1, not available: %2").arg(m_anywhere.shortcut, anywhere->shortcut().error());
    else
        shortcut = m_anywhere.pushToTalk ? tr("%1 (hold to talk)").arg(m_anywhere.shortcut)
                                         : tr("%1 (press to start, again to stop)").arg(m_anywhere.shortcut);
    m_tray->setShortcut(shortcut);
    updateIndicator();
}

void DesktopPresence::windowStateChanged() {
    const bool dictating = m_window->isDictating();
    TrayIcon::State state = TrayIcon::State::Idle;
    if (dictating && !m_window->isStopping()) state = TrayIcon::State::Listening;
    else if (m_window->isBusy()) state = TrayIcon::State::Busy;
    m_tray->setState(state, m_window->hasModel() && !m_window->isBusy());
    if (dictating && !m_running) runStarted();
    else if (!dictating && m_running) runEnded();
    else if (dictating && m_window->isStopping() && !m_typingFailed)
        m_indicator->setState(DictationIndicator::State::Finishing);
    updateIndicator();
}

void DesktopPresence::runStarted() {
    m_running = true;
    m_lingering = false;
    m_dismissed = false;
    m_typingFailed = false;
    m_linger.stop();
    m_spacing.reset();
    m_runText.clear();
    m_indicator->setRunText(QString());
    m_indicator->setTentative(QString());
    m_indicator->setLevel({});
    m_indicator->setState(DictationIndicator::State::Listening);
    m_tray->setHasLastText(false);
}

void DesktopPresence::runEnded() {
    m_running = false;
    m_indicator->setTentative(QString());
    m_indicator->setLevel({});
    if (!m_typingFailed) m_indicator->setState(DictationIndicator::State::Done);
    // Shown a moment longer for Copy; until dismissed when typing failed (the text is not there).
    m_lingering = true;
    if (!m_typingFailed) m_linger.start(kLingerMs);
}

bool DesktopPresence::ownWindowActive() const {
    const QWidget* active = QApplication::activeWindow();
    return active && active != m_indicator && (active == m_window || active->parentWidget() == m_window);
}

void DesktopPresence::updateIndicator() {
    const bool show = m_anywhere.showIndicator &&
                      DictationIndicator::showsWithoutFocus(QGuiApplication::platformName()) && !m_dismissed &&
                      (m_running || m_lingering) && !ownWindowActive();
    if (show && !m_indicator->isVisible()) m_indicator->present();
    else if (!show && m_indicator->isVisible()) m_indicator->hide();
}

bool DesktopPresence::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_window && event->type() == QEvent::Close && !m_quitting && closeHidesWindow()) {
        // Hidden, not closed: the window's close would end a run and its journal. With the window
        // hidden no visible window is left, so a dialog closing must not end the application.
        QApplication::setQuitOnLastWindowClosed(false);
        m_window->hide();
        event->ignore();
        updateIndicator();
        return true;
    }
    if (watched == m_window && event->type() == QEvent::Show) QApplication::setQuitOnLastWindowClosed(true);
    if (watched == m_window && event->type() == QEvent::WindowActivate) refreshTray();
    return QObject::eventFilter(watched, event);
}

void DesktopPresence::showAtStart(bool hiddenAsked) {
    if (!hiddenAsked && !(m_anywhere.keepInTray && m_anywhere.startInTray)) {
        m_window->show();
        return;
    }
    // Hidden: no window is visible, so a dialog closing must not end the application.
    QApplication::setQuitOnLastWindowClosed(false);
    m_startedHidden = true;
    m_trayWaited = 0;
    if (TrayIcon::available()) refreshTray();
    else m_trayWait.start();
}

void DesktopPresence::quit() {
    m_quitting = true;
    m_indicator->hide();
    // Shown, the window's close is the last window's close, which ends the application; hidden
    // in the tray it is not, so the application is told.
    const bool hidden = !m_window->isVisible();
    m_window->close();
    m_quitting = false;
    if (hidden) QCoreApplication::quit();
}

} // namespace hearsay::ui
