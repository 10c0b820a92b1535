// hearsay: the desktop application. Command-line options open a model and a file at start
// (and, for checks by eye on headless machines, save a picture of the window and quit).
#include "core/hub/model_scan.h"
#include "ui/main_window.h"

#include <QApplication>
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
    QApplication::setApplicationVersion("0.1.0");
    QApplication::setWindowIcon(QIcon(":/icons/hearsay.svg"));

    QCommandLineParser parser;
    parser.setApplicationDescription("Speech recognition with Whisper models, with the decoder's caches in view.");
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption model("model", "Open this model (Hugging Face checkpoint directory or ggml .bin).", "path");
    const QCommandLineOption open("open", "Transcribe this audio or video file once the model is loaded.", "file");
    const QCommandLineOption settingsFile("settings", "Read and write settings in this INI file instead of the user's.",
                                          "file");
    const QCommandLineOption screenshot("screenshot", "Save a PNG of the window once the jobs above end, then quit.",
                                        "file.png");
    parser.addOptions({model, open, settingsFile, screenshot});
    parser.process(app);

    std::unique_ptr<QSettings> settings;
    if (parser.isSet(settingsFile)) settings = std::make_unique<QSettings>(parser.value(settingsFile), QSettings::IniFormat);
    hearsay::ui::MainWindow window(std::move(settings));
    window.show();

    // Start-up jobs: the model (given, or the last session's), then the file, then the picture.
    const QString shotPath = parser.value(screenshot);
    const QString audio = parser.value(open);
    bool startupDone = false;
    auto finishStartup = [&] {
        if (startupDone) return;
        startupDone = true;
        if (shotPath.isEmpty()) return;
        QTimer::singleShot(400, &window, [&] {  // let the last updates paint before grabbing
            // A dialog over the window (the first start's model manager) is drawn where it stands.
            QPixmap shot = window.grab();
            if (QWidget* dialog = QApplication::activeModalWidget(); dialog && dialog != &window) {
                QPainter painter(&shot);
                painter.drawPixmap(dialog->geometry().topLeft() - window.geometry().topLeft(), dialog->grab());
            }
            if (!shot.save(shotPath)) std::fprintf(stderr, "hearsay: cannot save %s\n", qPrintable(shotPath));
            QApplication::quit();
        });
    };
    QObject::connect(&window, &hearsay::ui::MainWindow::modelLoadFinished, &window, [&](bool ok) {
        if (startupDone) return;
        if (ok && !audio.isEmpty()) window.openAudio(audio);
        else finishStartup();
    });
    QObject::connect(&window, &hearsay::ui::MainWindow::transcriptionEnded, &window, [&](bool) { finishStartup(); });

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
    if (!window.isBusy() && !audio.isEmpty()) window.openAudio(audio);  // no model: says so in the window
    if (!window.isBusy()) finishStartup();
    return app.exec();
}
