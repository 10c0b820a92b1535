// The docks of the main window (see main_window_docks.h).
#include "ui/main_window_docks.h"

#include "ui/cache_panel.h"
#include "ui/dictate_anywhere_panel.h"
#include "ui/live_panel.h"
#include "ui/settings_panel.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>

namespace hearsay::ui {
namespace {

QDockWidget* addDock(QMainWindow* window, const char* title, const char* name, QWidget* content, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(QCoreApplication::translate("MainWindow", title), window);
    dock->setObjectName(name);
    dock->setWidget(content);
    window->addDockWidget(area, dock);
    return dock;
}

} // namespace

MainWindowDocks MainWindowDocks::create(QMainWindow* window) {
    MainWindowDocks d;
    d.settings = new SettingsPanel(window);
    QDockWidget* settingsDock = addDock(window, QT_TRANSLATE_NOOP("MainWindow", "Settings"), "settingsDock", d.settings,
                                        Qt::LeftDockWidgetArea);

    d.cache = new CachePanel(window);
    auto* scroll = new QScrollArea(window);
    scroll->setWidget(d.cache);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    QDockWidget* cacheDock = addDock(window, QT_TRANSLATE_NOOP("MainWindow", "Model and caches"), "cacheDock", scroll,
                                     Qt::RightDockWidgetArea);
    window->resizeDocks({settingsDock, cacheDock}, {280, 320}, Qt::Horizontal);

    d.anywhere = new DictateAnywherePanel(window);
    addDock(window, QT_TRANSLATE_NOOP("MainWindow", "Dictate anywhere"), "anywhereDock", d.anywhere, Qt::LeftDockWidgetArea);

    d.live = new LivePanel(window);
    QDockWidget* liveDock =
        addDock(window, QT_TRANSLATE_NOOP("MainWindow", "Live"), "liveDock", d.live, Qt::BottomDockWidgetArea);
    window->resizeDocks({liveDock}, {170}, Qt::Vertical);
    return d;
}

} // namespace hearsay::ui
