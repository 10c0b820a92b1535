// Persistence of the dictate-anywhere settings (see anywhere_settings.h).
#include "ui/anywhere_settings.h"

#include <QSettings>

namespace hearsay::ui {

AnywhereSettings AnywhereSettings::load(const QSettings& settings) {
    AnywhereSettings s;
    s.shortcut = settings.value("anywhere/shortcut", s.shortcut).toString().trimmed();
    s.pushToTalk = settings.value("anywhere/mode", "toggle").toString() == "push-to-talk";
    s.typeText = settings.value("anywhere/typeText", s.typeText).toBool();
    s.insertion = insertionModeFromName(settings.value("anywhere/insertion", "automatic").toString().toStdString())
                      .value_or(InsertionMode::Automatic);
    s.newline = newlineModeFromName(settings.value("anywhere/newline", "return").toString().toStdString())
                    .value_or(NewlineMode::Return);
    s.keepInTray = settings.value("anywhere/keepInTray", s.keepInTray).toBool();
    s.startInTray = settings.value("anywhere/startInTray", s.startInTray).toBool();
    s.showIndicator = settings.value("anywhere/indicator", s.showIndicator).toBool();
    return s;
}

void AnywhereSettings::save(QSettings& settings) const {
    settings.setValue("anywhere/shortcut", shortcut);
    settings.setValue("anywhere/mode", pushToTalk ? "push-to-talk" : "toggle");
    settings.setValue("anywhere/typeText", typeText);
    settings.setValue("anywhere/insertion", QString::fromStdString(insertionModeName(insertion)));
    settings.setValue("anywhere/newline", QString::fromStdString(newlineModeName(newline)));
    settings.setValue("anywhere/keepInTray", keepInTray);
    settings.setValue("anywhere/startInTray", startInTray);
    settings.setValue("anywhere/indicator", showIndicator);
}

} // namespace hearsay::ui
