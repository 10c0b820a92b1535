// hearsay: the desktop application. Command-line options open a model and a file at start, or
// dictate from a file played at real-time pace (tests, demos), and, for checks by eye on headless
// machines, save a picture of the window and quit (exit status 1 when a job failed); the start-up
// jobs are ui/startup_driver.h's. One instance per user: `hearsay --dictate ACTION` and a second
// plain start reach the running one over D-Bus (ui/dictation_bus.h).
#include "ui/desktop_presence.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictation_bus.h"
#include "ui/main_window.h"
#include "ui/startup_driver.h"
#include "hearsay_commit.h"  // generated at every build (app/build_commit.cmake)

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>

#include <cstdio>
#include <cstdlib>

// Qt aborts when no platform plugin can start; say what is missing instead.
static bool displayAvailable() {
    auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value && *value;
    };
    return set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM");
}

int main(int argc, char** argv) {
    if (!displayAvailable()) {
        std::fprintf(stderr, "hearsay: no display (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
                             "Start it from a desktop session, under xvfb-run, or use hearsay-cli on headless machines.\n");
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName("Hearsay");
    QApplication::setOrganizationName("Hearsay");
    QApplication::setApplicationVersion(HEARSAY_VERSION " (commit " HEARSAY_GIT_COMMIT ")");
    QApplication::setWindowIcon(QIcon(":/icons/hearsay.svg"));

    QCommandLineParser parser;
    parser.setApplicationDescription("Speech recognition with Whisper models, with the decoder's caches in view.");
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption model("model", "Open this model (Hugging Face checkpoint directory or ggml .bin).", "path");
    const QCommandLineOption open("open", "Transcribe this audio or video file once the model is loaded.", "file");
    const QCommandLineOption settingsFile("settings", "Read and write settings in this INI file instead of the user's.",
                                          "file");
    const QCommandLineOption screenshot("screenshot", "Save a PNG of the window once the jobs above end, then quit "
                                                      "(exit status 1 if a job failed).",
                                        "file.png");
    const QCommandLineOption dictateFile("dictate-file", "Dictate from this audio file played at real-time pace as if "
                                                         "it were a microphone, once the model is loaded.",
                                         "file");
    const QCommandLineOption speed("speed", "Pace of --dictate-file: seconds of audio per second (default 1).", "x", "1");
    const QCommandLineOption shotAfter("screenshot-after", "With --dictate-file: take the --screenshot this many "
                                                           "seconds after dictation starts (default: when it ends).",
                                       "seconds");
    const QCommandLineOption printCommitted("print-committed", "Print each piece of committed dictation text to "
                                                               "standard output as it is shown (one line each).");
    const QCommandLineOption cachesOffAfter("caches-off-after", "With --dictate-file: switch both K/V caches off this "
                                                                "many seconds into the dictation, as a user would in "
                                                                "the settings (a demo of the live chart).",
                                            "seconds");
    const QCommandLineOption dictate("dictate", "Dictation in the running Hearsay: toggle, start or stop it, raise its "
                                                "window, or print its status (recording or idle). With none "
                                                "running, toggle and start open Hearsay and dictate once its model is "
                                                "loaded. For desktop key bindings.",
                                     "action");
    const QCommandLineOption hidden("hidden", "Start with the window hidden in the system tray (for a login entry): "
                                              "the shortcut and the tray icon work at once. Where the desktop has no "
                                              "tray, the window shows after all.");
    parser.addOptions({model, open, settingsFile, screenshot, dictateFile, speed, shotAfter, printCommitted, cachesOffAfter,
                       dictate, hidden});
    parser.process(app);

    // The user's instance (an instance with its own --settings file stays off the bus) takes
    // requests from the session bus; a second start hands its request over and ends.
    using hearsay::ui::DictationBus;
    const bool usersInstance = !parser.isSet(settingsFile);
    bool dictateOnStart = false;
    if (parser.isSet(dictate)) {
        const QString action = parser.value(dictate);
        QString answer;
        const auto outcome = DictationBus::request(QDBusConnection::sessionBus(), action, &answer);
        if (outcome == DictationBus::Outcome::Delivered) {
            std::printf("%s\n", qPrintable(answer));
            return 0;
        }
        if (outcome == DictationBus::Outcome::Failed || (action != "toggle" && action != "start")) {
            std::fprintf(stderr, "hearsay: --dictate %s: %s\n", qPrintable(action), qPrintable(answer));
            return 1;
        }
        dictateOnStart = true;  // none running: this one starts, and dictates once its model is in
    } else if (usersInstance && parser.optionNames().isEmpty()) {
        QString answer;
        if (DictationBus::request(QDBusConnection::sessionBus(), "raise", &answer) == DictationBus::Outcome::Delivered) {
            std::fprintf(stderr, "hearsay: already running (%s); its window was raised\n", qPrintable(answer));
            return 0;
        }
    }
    bool speedOk = false;
    const double pace = parser.value(speed).toDouble(&speedOk);
    if (!speedOk || pace <= 0.0 || pace > 1000.0) {
        std::fprintf(stderr, "hearsay: --speed takes a number of seconds of audio per second, above 0 (got \"%s\")\n",
                     qPrintable(parser.value(speed)));
        return 2;
    }
    // A number of seconds >= 0 into `out` when the option is given; false when it is not a number.
    auto seconds = [&parser](const QCommandLineOption& option, const char* name, double* out) {
        if (!parser.isSet(option)) return true;
        bool ok = false;
        *out = parser.value(option).toDouble(&ok);
        if (ok && *out >= 0.0) return true;
        std::fprintf(stderr, "hearsay: --%s takes a number of seconds (got \"%s\")\n", name,
                     qPrintable(parser.value(option)));
        return false;
    };
    hearsay::ui::StartupPlan plan;
    plan.model = parser.value(model);
    plan.audio = parser.value(open);
    plan.dictated = parser.value(dictateFile);
    plan.pace = pace;
    plan.screenshot = parser.value(screenshot);
    plan.printCommitted = parser.isSet(printCommitted);
    if (!seconds(shotAfter, "screenshot-after", &plan.screenshotAfter) ||
        !seconds(cachesOffAfter, "caches-off-after", &plan.cachesOffAfter))
        return 2;

    std::unique_ptr<QSettings> settings;
    if (parser.isSet(settingsFile)) settings = std::make_unique<QSettings>(parser.value(settingsFile), QSettings::IniFormat);
    hearsay::ui::MainWindow window(std::move(settings));
    window.desktopPresence()->showAtStart(parser.isSet(hidden));

    DictationBus bus([&window] { return window.isDictating(); });
    if (usersInstance) {
        QObject::connect(&bus, &DictationBus::toggleRequested, window.dictateAnywhere(),
                         &hearsay::ui::DictateAnywhere::toggleRequested);
        QObject::connect(&bus, &DictationBus::startRequested, window.dictateAnywhere(),
                         &hearsay::ui::DictateAnywhere::startRequested);
        QObject::connect(&bus, &DictationBus::stopRequested, window.dictateAnywhere(),
                         &hearsay::ui::DictateAnywhere::stopRequested);
        QObject::connect(&bus, &DictationBus::raiseRequested, &window, [&window] {
            window.showNormal();
            window.raise();
            window.activateWindow();
        });
        QString why;
        const QDBusConnection session = QDBusConnection::sessionBus();
        if (session.isConnected() && !bus.publish(session, &why)) {
            std::fprintf(stderr, "hearsay: --dictate will not reach this window: %s\n", qPrintable(why));
        }
    }
    if (dictateOnStart) {
        QObject::connect(&window, &hearsay::ui::MainWindow::modelLoadFinished, &window, [&window](bool ok) {
            if (ok && !window.isDictating()) emit window.dictateAnywhere()->startRequested();
        }, Qt::SingleShotConnection);
    }

    hearsay::ui::StartupDriver startup(window, std::move(plan));
    startup.start();
    return app.exec();
}
