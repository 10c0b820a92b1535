// The on-screen indicator shown while dictating into another application: a small frameless
// window, always on top, that never takes the keyboard focus (the application being dictated
// into keeps it, so typing goes on there): whether Hearsay listens or finishes, the input level,
// the words not yet committed, and Copy, which puts the text of the last dictation run on the
// clipboard (text that could not be typed is one click away). It sits at the bottom centre of
// the screen that has the mouse pointer, or where the user dragged it (moved()).
//
// Only where a window can be shown without the keyboard focus: an X11 window may refuse it, but a
// Wayland compositor gives a new window the focus (sway does, so the keys typed for the
// application went into the indicator) unless it is a layer-shell surface, which Hearsay does not
// make: with Qt on Wayland there is no indicator, and the tray and the window show the state.
#pragma once

#include "core/audio/level_meter.h"

#include <QPoint>
#include <QString>
#include <QWidget>

#include <optional>

class QLabel;
class QToolButton;

namespace hearsay::ui {

class LevelMeterBar;

class DictationIndicator : public QWidget {
    Q_OBJECT
public:
    enum class State { Listening, Finishing, Done, Failed };

    explicit DictationIndicator(QWidget* parent = nullptr);

    // Whether Qt's platform `platformName` ("xcb", "wayland", "wayland-egl") can show the
    // indicator without taking the keyboard focus; an empty `why` when it can.
    static bool showsWithoutFocus(const QString& platformName, QString* why = nullptr);

    // Where it goes when shown: the dragged-to position, or none (bottom centre of the pointer's screen).
    void setPreferredPosition(std::optional<QPoint> position) { m_position = position; }
    std::optional<QPoint> preferredPosition() const { return m_position; }
    // Shows it at its position without activating it.
    void present();

    // `detail`: for Failed, why typing stopped.
    void setState(State state, const QString& detail = {});
    State state() const { return m_state; }
    void setLevel(const InputLevel& level);
    void setTentative(const QString& text);
    // The run's text so far (what Copy copies); empty disables Copy.
    void setRunText(const QString& text);
    QString runText() const { return m_runText; }
    // Puts the run's text on the clipboard (the Copy button).
    void copyRunText();

    LevelMeterBar* levelMeter() const { return m_level; }
    QString stateText() const;
    QString tentativeText() const;

signals:
    // The user dragged it to `position` (top-left, global).
    void moved(const QPoint& position);
    // The user closed it (×) until the next run.
    void dismissed();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QPoint defaultPosition() const;

    State m_state = State::Listening;
    QLabel* m_stateLabel = nullptr;
    QLabel* m_tentative = nullptr;
    LevelMeterBar* m_level = nullptr;
    QToolButton* m_copy = nullptr;
    QToolButton* m_close = nullptr;
    QString m_runText;
    QString m_fullTentative;
    std::optional<QPoint> m_position;
    std::optional<QPoint> m_dragOffset;  // pointer minus top-left while dragging
    bool m_dragged = false;
};

} // namespace hearsay::ui
