// hearsay: the desktop application. Command-line options open a model and a file at start, or
// dictate from a file played at real-time pace (tests, demos), and, for checks by eye on headless
// machines, save a picture of the window and quit (exit status 1 when a job failed). One instance
// per user: `hearsay --dictate ACTION` and a second plain start reach the running one over D-Bus
// (ui/dictation_bus.h).
#include "core/hub/model_scan.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictation_bus.h"
#include "ui/main_window.h"
#include "ui/settings_panel.h"

#include <QApplication>
#include <QCheckBox>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QSettings>
#include <QTimer>

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
    parser.addOptions({model, open, settingsFile, screenshot, dictateFile, speed, shotAfter, printCommitted, cachesOffAfter,
                       dictate});
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
    double shotDelay = -1.0;
    if (parser.isSet(shotAfter)) {
        bool ok = false;
        shotDelay = parser.value(shotAfter).toDouble(&ok);
        if (!ok || shotDelay < 0.0) {
            std::fprintf(stderr, "hearsay: --screenshot-after takes a number of seconds (got \"%s\")\n",
                         qPrintable(parser.value(shotAfter)));
            return 2;
        }
    }

    std::unique_ptr<QSettings> settings;
    if (parser.isSet(settingsFile)) settings = std::make_unique<QSettings>(parser.value(settingsFile), QSettings::IniFormat);
    hearsay::ui::MainWindow window(std::move(settings));
    window.show();

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

    if (parser.isSet(printCommitted)) {
        QObject::connect(&window, &hearsay::ui::MainWindow::committedShown, &window, [](const QString& text) {
            std::printf("%s\n", qPrintable(text));
            std::fflush(stdout);
        });
    }

    // Start-up jobs: the model (given, or the last session's), then the file or the dictation,
    // then the picture. The exit status says whether they succeeded.
    const QString shotPath = parser.value(screenshot);
    const QString audio = parser.value(open);
    const QString dictated = parser.value(dictateFile);
    bool startupDone = false;
    bool startupOk = true;
    auto finishStartup = [&](bool ok) {
        if (startupDone) return;
        startupDone = true;
        startupOk = ok;
        if (shotPath.isEmpty()) return;
        QTimer::singleShot(400, &window, [&] {  // let the last updates paint before grabbing
            // A dialog over the window (the first start's model manager) is drawn where it stands.
            QPixmap shot = window.grab();
            if (QWidget* dialog = QApplication::activeModalWidget(); dialog && dialog != &window) {
                QPainter painter(&shot);
                painter.drawPixmap(dialog->geometry().topLeft() - window.geometry().topLeft(), dialog->grab());
            }
            if (!shot.save(shotPath)) {
                std::fprintf(stderr, "hearsay: cannot save %s\n", qPrintable(shotPath));
                startupOk = false;
            }
            if (window.isDictating()) {
                // Stop drains; quit once the last words are in.
                QObject::connect(&window, &hearsay::ui::MainWindow::dictationEnded, &window,
                                 [&] { QApplication::exit(startupOk ? 0 : 1); });
                window.stopDictation();
            } else {
                QApplication::exit(startupOk ? 0 : 1);
            }
        });
    };
    auto startJobs = [&] {
        if (!dictated.isEmpty()) window.dictateFile(dictated, pace);
        else if (!audio.isEmpty()) window.openAudio(audio);
    };
    QObject::connect(&window, &hearsay::ui::MainWindow::modelLoadFinished, &window, [&](bool ok) {
        if (startupDone) return;
        if (ok && (!audio.isEmpty() || !dictated.isEmpty())) startJobs();
        else finishStartup(ok);
        if (!window.isBusy() && !startupDone) finishStartup(false);  // the job could not start
    });
    QObject::connect(&window, &hearsay::ui::MainWindow::transcriptionEnded, &window, [&](bool ok) { finishStartup(ok); });
    QObject::connect(&window, &hearsay::ui::MainWindow::dictationEnded, &window, [&](bool ok) { finishStartup(ok); });
    if (parser.isSet(cachesOffAfter)) {
        bool ok = false;
        const double after = parser.value(cachesOffAfter).toDouble(&ok);
        if (!ok || after < 0.0) {
            std::fprintf(stderr, "hearsay: --caches-off-after takes a number of seconds (got \"%s\")\n",
                         qPrintable(parser.value(cachesOffAfter)));
            return 2;
        }
        QObject::connect(&window, &hearsay::ui::MainWindow::dictationStarted, &window, [&window, after] {
            QTimer::singleShot(int(after * 1000), &window, [&window] {
                window.settingsPanel()->selfCacheSwitch()->setChecked(false);
                window.settingsPanel()->crossCacheSwitch()->setChecked(false);
            });
        });
    }
    if (shotDelay >= 0.0) {
        QObject::connect(&window, &hearsay::ui::MainWindow::dictationStarted, &window, [&] {
            QTimer::singleShot(int(shotDelay * 1000), &window, [&] { finishStartup(true); });
        });
    }

    if (parser.isSet(model)) {
        window.openModel(parser.value(model));
    } else {
        window.reopenLastModel();
        if (!window.isBusy()) {
            // First start (no model yet): tiny.en when it is installed or found on the disk,
            // otherwise the model manager, offering the download.
            const auto first = hearsay::hub::firstStartModel(hearsay::hub::defaultScanLocations());
            if (!first.empty()) {
                window.openModel(QString::fromStdString(first.string()));
            } else {
                window.showModelManager(QObject::tr(
                    "<b>Hearsay needs a Whisper model.</b> Download one below — <i>tiny.en</i> (CTranslate2, about 75 MB) "
                    "is quick to fetch and fast on any CPU — or open a model already found on this computer."));
            }
        }
    }
    if (!window.isBusy() && (!audio.isEmpty() || !dictated.isEmpty())) {
        startJobs();  // no model: says so in the window
        if (!window.isBusy()) finishStartup(false);
    }
    if (!window.isBusy()) finishStartup(startupOk);
    return app.exec();
}
