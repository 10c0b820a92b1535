// Hearsay in the system tray: an icon that shows whether it is idle, listening or busy
// (transcribing, finishing a dictation, loading a model), a tooltip with that state and the
// global shortcut in use, and a menu: Start/Stop dictation, Copy last dictation, Show Hearsay,
// Quit. The icons are drawn here (a microphone, its colour and badge by state). The state and the
// menu are plain Qt objects, so they exist and can be read where the desktop has no tray; the
// QSystemTrayIcon itself is shown only where one is available.
#pragma once

#include <QIcon>
#include <QObject>
#include <QString>

class QAction;
class QMenu;
class QSystemTrayIcon;

namespace hearsay::ui {

class TrayIcon : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Listening, Busy };

    explicit TrayIcon(QObject* parent = nullptr);
    ~TrayIcon() override;

    // Whether the desktop has a system tray now, and why not ("" when it has).
    static bool available();
    static QString unavailableReason();
    // The icon of a state, drawn at `size` pixels.
    static QIcon iconFor(State state, int size = 64);

    // `canStart`: a dictation could start now (a model is loaded, no other job runs).
    void setState(State state, bool canStart);
    // The shortcut's description: "Ctrl+Alt+D (press to start, again to stop)" or why there is none.
    void setShortcut(const QString& description);
    // Whether the last run left text to copy (Copy last dictation is enabled then).
    void setHasLastText(bool has);
    // Shows the icon in the tray (where there is one) or takes it away.
    void setVisible(bool visible);
    bool isVisible() const;

    State state() const { return m_state; }
    QIcon icon() const { return iconFor(m_state); }
    QString toolTip() const;
    QMenu* menu() const { return m_menu; }
    QAction* startStopAction() const { return m_startStop; }
    QAction* copyAction() const { return m_copy; }
    QAction* showAction() const { return m_show; }
    QAction* quitAction() const { return m_quit; }

signals:
    void startRequested();
    void stopRequested();
    void copyRequested();
    void showRequested();
    void quitRequested();

private:
    void update();

    State m_state = State::Idle;
    bool m_canStart = false;
    QString m_shortcut;
    QMenu* m_menu = nullptr;
    QAction* m_startStop = nullptr;
    QAction* m_copy = nullptr;
    QAction* m_show = nullptr;
    QAction* m_quit = nullptr;
    QSystemTrayIcon* m_tray = nullptr;
};

} // namespace hearsay::ui
