// The main window's docks, built in one place: Settings and Dictate anywhere on the left, Model
// and caches on the right (scrolling), Live at the bottom, each with the object name its saved
// state is restored by. The window fills the panels and connects them.
#pragma once

class QMainWindow;

namespace hearsay::ui {

class CachePanel;
class DictateAnywherePanel;
class LivePanel;
class SettingsPanel;

struct MainWindowDocks {
    SettingsPanel* settings = nullptr;
    CachePanel* cache = nullptr;
    DictateAnywherePanel* anywhere = nullptr;
    LivePanel* live = nullptr;

    static MainWindowDocks create(QMainWindow* window);
};

} // namespace hearsay::ui
