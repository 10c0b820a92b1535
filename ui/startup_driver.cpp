#include "ui/startup_driver.h"

#include "core/hub/model_scan.h"
#include "ui/main_window.h"
#include "ui/settings_panel.h"

#include <QApplication>
#include <QCheckBox>
#include <QPainter>
#include <QPixmap>
#include <QTimer>

#include <cstdio>

namespace hearsay::ui {

StartupDriver::StartupDriver(MainWindow& window, StartupPlan plan) : m_window(window), m_plan(std::move(plan)) {
    if (m_plan.printCommitted) {
        connect(&m_window, &MainWindow::committedShown, this, [](const QString& text) {
            std::printf("%s\n", qPrintable(text));
            std::fflush(stdout);
        });
    }
    // The jobs: the model, then the file or the dictation, then the picture. The exit status
    // says whether they succeeded.
    connect(&m_window, &MainWindow::modelLoadFinished, this, [this](bool ok) {
        if (m_done) return;
        if (ok && (!m_plan.audio.isEmpty() || !m_plan.dictated.isEmpty())) startJobs();
        else finish(ok);
        if (!m_window.isBusy() && !m_done) finish(false);  // the job could not start
    });
    connect(&m_window, &MainWindow::transcriptionEnded, this, [this](bool ok) { finish(ok); });
    connect(&m_window, &MainWindow::dictationEnded, this, [this](bool ok) { finish(ok); });
    if (m_plan.cachesOffAfter >= 0.0) {
        connect(&m_window, &MainWindow::dictationStarted, this, [this] {
            QTimer::singleShot(int(m_plan.cachesOffAfter * 1000), this, [this] {
                m_window.settingsPanel()->selfCacheSwitch()->setChecked(false);
                m_window.settingsPanel()->crossCacheSwitch()->setChecked(false);
            });
        });
    }
    if (m_plan.screenshotAfter >= 0.0) {
        connect(&m_window, &MainWindow::dictationStarted, this, [this] {
            QTimer::singleShot(int(m_plan.screenshotAfter * 1000), this, [this] { finish(true); });
        });
    }
}

void StartupDriver::start() {
    if (!m_plan.model.isEmpty()) {
        m_window.openModel(m_plan.model);
    } else {
        m_window.reopenLastModel();
        if (!m_window.isBusy()) {
            // First start (no model yet): tiny.en when it is installed or found on the disk,
            // otherwise the model manager, offering the download.
            const auto first = hub::firstStartModel(hub::defaultScanLocations());
            if (!first.empty()) {
                m_window.openModel(QString::fromStdString(first.string()));
            } else {
                m_window.showModelManager(tr(
                    "<b>Hearsay needs a Whisper model.</b> Download one below — <i>tiny.en</i> (CTranslate2, about 75 MB) "
                    "is quick to fetch and fast on any CPU — or open a model already found on this computer."));
            }
        }
    }
    if (!m_window.isBusy() && (!m_plan.audio.isEmpty() || !m_plan.dictated.isEmpty())) {
        startJobs();  // no model: says so in the window
        if (!m_window.isBusy()) finish(false);
    }
    if (!m_window.isBusy()) finish(m_ok);
}

void StartupDriver::startJobs() {
    if (!m_plan.dictated.isEmpty()) m_window.dictateFile(m_plan.dictated, m_plan.pace);
    else if (!m_plan.audio.isEmpty()) m_window.openAudio(m_plan.audio);
}

void StartupDriver::finish(bool ok) {
    if (m_done) return;
    m_done = true;
    m_ok = ok;
    if (m_plan.screenshot.isEmpty()) return;
    QTimer::singleShot(400, this, [this] { takeScreenshot(); });  // let the last updates paint before grabbing
}

void StartupDriver::takeScreenshot() {
    // A dialog over the window (the first start's model manager) is drawn where it stands.
    QPixmap shot = m_window.grab();
    if (QWidget* dialog = QApplication::activeModalWidget(); dialog && dialog != &m_window) {
        QPainter painter(&shot);
        painter.drawPixmap(dialog->geometry().topLeft() - m_window.geometry().topLeft(), dialog->grab());
    }
    if (!shot.save(m_plan.screenshot)) {
        std::fprintf(stderr, "hearsay: cannot save %s\n", qPrintable(m_plan.screenshot));
        m_ok = false;
    }
    if (m_window.isDictating()) {
        // Stop drains; quit once the last words are in.
        connect(&m_window, &MainWindow::dictationEnded, this, [this] { QApplication::exit(m_ok ? 0 : 1); });
        m_window.stopDictation();
    } else {
        QApplication::exit(m_ok ? 0 : 1);
    }
}

} // namespace hearsay::ui
