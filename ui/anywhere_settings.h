// Dictating into other applications: the global shortcut, what it does (push-to-talk or toggle),
// whether committed text is typed into the focused application, and how (typed or pasted, a
// newline as Return, Shift+Enter or a space); whether the window closes into the tray (and starts
// there) and whether
// the on-screen indicator shows while dictating. Persisted with QSettings.
#pragma once

#include "core/typing/insertion_method.h"
#include "core/typing/newline_mode.h"

#include <QString>

class QSettings;

namespace hearsay::ui {

struct AnywhereSettings {
    QString shortcut = "Ctrl+Alt+D";  // Qt's portable text; empty: no global shortcut
    bool pushToTalk = false;          // hold to dictate (true) or press to start and again to stop
    bool typeText = true;             // type committed text into the focused application (not Hearsay's own window)
    InsertionMode insertion = InsertionMode::Automatic;  // typed, pasted, or pasted when long or not typeable
    NewlineMode newline = NewlineMode::Return;           // a dictated newline: Return, Shift+Enter or a space
    bool keepInTray = false;     // closing the window hides it into the tray (when the desktop has one)
    bool startInTray = false;    // with keepInTray: Hearsay starts with its window hidden in the tray
    bool showIndicator = true;   // the on-screen indicator while dictating into another application

    bool operator==(const AnywhereSettings&) const = default;
    static AnywhereSettings load(const QSettings& settings);
    void save(QSettings& settings) const;
};

} // namespace hearsay::ui
