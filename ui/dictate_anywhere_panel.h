// The "Dictate anywhere" panel: the global shortcut, push-to-talk or toggle, typing into the
// focused application and how (typed key by key, pasted through the clipboard, or automatic; a
// newline as Return, Shift+Enter or a space), the on-screen indicator, keeping Hearsay in the tray
// when the window closes (disabled, with the reason, without a tray), and a line saying which
// mechanism is in use or why there is none.
#pragma once

#include "ui/anywhere_settings.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QKeySequenceEdit;
class QLabel;

namespace hearsay::ui {

class DictateAnywherePanel : public QWidget {
    Q_OBJECT
public:
    explicit DictateAnywherePanel(QWidget* parent = nullptr);

    // Shows `settings` without emitting settingsChanged.
    void setSettings(const AnywhereSettings& settings);
    AnywhereSettings settings() const;
    // What the shortcut and the typing run on, or why they do not (one line each).
    void setStatus(const QString& shortcut, const QString& typing);
    // Whether the desktop has a system tray; without one the tray setting is disabled and says `why`.
    void setTrayAvailable(bool available, const QString& why);
    // The indicator cannot be shown here (`why`): its box is disabled and says so.
    void setIndicatorAvailable(bool available, const QString& why);
    bool trayAvailable() const;

signals:
    void settingsChanged(const hearsay::ui::AnywhereSettings& settings);

private:
    void updateStartInTray();

    QKeySequenceEdit* m_shortcut = nullptr;
    QComboBox* m_mode = nullptr;
    QCheckBox* m_type = nullptr;
    QComboBox* m_insertion = nullptr;
    QComboBox* m_newline = nullptr;
    QCheckBox* m_indicator = nullptr;
    QCheckBox* m_tray = nullptr;
    QCheckBox* m_startInTray = nullptr;
    QString m_indicatorTip;
    QLabel* m_trayUnavailable = nullptr;
    QLabel* m_status = nullptr;
    bool m_updating = false;
};

} // namespace hearsay::ui
