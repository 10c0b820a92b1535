// When the chosen backend cannot be used, the window says why and offers the CPU backend; the
// transcript already shown is kept. On a machine without a GPU, choosing CUDA fails for real, so
// the whole flow runs without mocks: a file transcribed on the CPU, CUDA chosen, another file
// opened (the offer appears, the first transcript is still there), the offer accepted (the file is
// transcribed on the CPU, the settings say "cpu"). Also: the panel's memory line (system RAM on
// the CPU), a model load under CUDA settings, a job continued from the middle of a file, the
// kinds the worker's failures carry and the offer decided from the kind alone, and Cancel's tickets.
#include "ui_test_support.h"

#include "core/backend/backend.h"
#include "core/engine/backend_factory.h"
#include "ui/cache_panel.h"
#include "ui/engine_controls.h"
#include "ui/engine_settings.h"
#include "ui/file_job_controller.h"
#include "ui/layer_bar_chart.h"
#include "ui/main_window.h"
#include "ui/memory_bar.h"
#include "ui/message_bar.h"
#include "ui/settings_panel.h"
#include "ui/transcript_model.h"
#include "ui/transcription_worker.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/sysinfo.h>

#include <memory>

using namespace hearsay::ui;

namespace {

using namespace hearsay::test;

// Why this machine cannot show the failure (a GPU is present and CUDA starts), or empty.
QString cudaStarts() {
    auto backend = hearsay::createBackend(hearsay::BackendKind::Cuda);
    return backend.ok() ? QString("the CUDA backend starts here (%1): there is no failure to offer a way out of")
                              .arg(QString::fromStdString(backend.value()->name()))
                        : QString();
}

} // namespace

class TestBackendFallback : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_model;

    std::unique_ptr<MainWindow> makeWindow(const QString& settingsName, const QString& backend = "cpu") {
        {
            QSettings stored(m_dir.filePath(settingsName), QSettings::IniFormat);
            stored.setValue("engine/backend", backend);
            // The random model's text always fails the reference's checks: one decode per window
            // instead of 26 (these checks are about the backend, not the text).
            stored.setValue("decoding/temperatureFallback", false);
        }
        auto settings = std::make_unique<QSettings>(m_dir.filePath(settingsName), QSettings::IniFormat);
        return std::make_unique<MainWindow>(std::move(settings));
    }

    static QString storedBackend(const QString& path) {
        return QSettings(path, QSettings::IniFormat).value("engine/backend").toString();
    }


    // Transcribes `path` and waits; the job's success.
    bool transcribe(MainWindow& window, const QString& path) {
        QSignalSpy ended(&window, &MainWindow::transcriptionEnded);
        window.openAudio(path);
        return ended.wait(kJobTimeoutMs) && ended.count() == 1 && ended.at(0).at(0).toBool();
    }

    static QStringList texts(const TranscriptModel& model) {
        QStringList lines;
        for (int r = 0; r < model.rowCount(); ++r) lines << QString::fromStdString(model.segment(r).text);
        return lines;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(jfk()) && QFile::exists(speech30()), HEARSAY_SHARED_DATA_DIR);
        m_model = m_dir.filePath("model-64x2x2");
        const QString problem = makeTestModel(m_model);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void panelShowsSystemMemory() {
        auto window = makeWindow("memory.ini");
        CachePanel* panel = window->cachePanel();
        QCOMPARE(labelText(panel, "deviceMemory"), QString("–"));  // no backend yet
        QVERIFY(loadModel(*window, m_model));
        QTRY_VERIFY_WITH_TIMEOUT(panel->metrics().cache.device.known, kJobTimeoutMs);

        const hearsay::DeviceMemory memory = panel->metrics().cache.device;
        QVERIFY(!memory.gpu);
        struct sysinfo info {};
        QCOMPARE(sysinfo(&info), 0);
        const size_t total = size_t(info.totalram) * info.mem_unit;  // the kernel's count, read here
        QVERIFY2(memory.totalBytes <= total && total - memory.totalBytes < 1024,
                 qPrintable(QString("%1 vs %2").arg(memory.totalBytes).arg(total)));
        QVERIFY(memory.freeBytes > 0 && memory.freeBytes < memory.totalBytes);

        // What the panel prints: "System memory: 21.5 GiB free of 23.5 GiB", and a bar in between.
        QVERIFY(panel->memoryText().startsWith("System memory: "));
        const QString shown = labelText(panel, "deviceMemory");
        const QRegularExpression format("^(\\d+(\\.\\d+)? [KMGT]i?B) free of (\\d+(\\.\\d+)? [KMGT]i?B)$");
        const QRegularExpressionMatch match = format.match(shown);
        QVERIFY2(match.hasMatch(), qPrintable(shown));
        QCOMPARE(match.captured(3), formatBytes(memory.totalBytes));
        QVERIFY(panel->memoryText().endsWith(shown));
        const double used = panel->memoryBar()->usedFraction();
        QVERIFY2(used > 0.0 && used < 1.0, qPrintable(QString::number(used)));
        QCOMPARE(panel->memoryBar()->memory().totalBytes, memory.totalBytes);

        // The line keeps up while idle: the window polls the backend about once a second. A stale
        // reading put in the panel is replaced by a fresh one without any engine report. First
        // let the reports of the load (and of the settings applied after it) arrive: on a loaded
        // machine they can still be queued here.
        QSignalSpy metrics(window.get(), &MainWindow::metricsShown);
        for (int quiet = 0; quiet < 3;) {
            const int before = int(metrics.count());
            QTest::qWait(300);
            quiet = metrics.count() == before ? quiet + 1 : 0;
        }
        metrics.clear();
        panel->setDeviceMemory({true, false, "system RAM", size_t(1) << 20, size_t(1) << 19});
        QCOMPARE(labelText(panel, "deviceMemory"), QString("512 KiB free of 1.00 MiB"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->metrics().cache.device.totalBytes == memory.totalBytes, 10000);
        QVERIFY(panel->metrics().cache.device.freeBytes > 0);
        QCOMPARE(metrics.count(), 0);  // no engine report in between: the poll did it
    }

    void panelShowsAGpusMemory() {
        // The panel alone, given a reading as CudaBackend::memoryInfo makes it (no GPU needed).
        CachePanel panel;
        EngineMetrics metrics;
        metrics.backend = "cuda (NVIDIA H100 80GB HBM3, sm_90, cuBLAS fp32)";
        metrics.cache.selfAllocated = size_t(3) << 30;
        metrics.cache.crossAllocated = size_t(1) << 30;
        metrics.cache.device = {true, true, "GPU 0 (NVIDIA H100 80GB HBM3)", size_t(80) << 30, size_t(12) << 30};
        panel.setMetrics(metrics);
        QCOMPARE(panel.memoryText(), QString("GPU memory: 12.0 GiB free of 80.0 GiB (NVIDIA H100 80GB HBM3)"));
        QCOMPARE(labelText(&panel, "deviceMemory"), QString("12.0 GiB free of 80.0 GiB\nNVIDIA H100 80GB HBM3"));
        QCOMPARE(panel.memoryBar()->usedFraction(), 68.0 / 80.0);
        QVERIFY(panel.memoryBar()->toolTip().contains("4.00 GiB"));  // the caches' share

        // A newer reading alone (the window's poll) keeps the cache figures.
        panel.setDeviceMemory({true, true, "GPU 0 (NVIDIA H100 80GB HBM3)", size_t(80) << 30, size_t(40) << 30});
        QCOMPARE(panel.memoryText(), QString("GPU memory: 40.0 GiB free of 80.0 GiB (NVIDIA H100 80GB HBM3)"));
        QCOMPARE(panel.metrics().cache.selfAllocated, size_t(3) << 30);
        QCOMPARE(panel.memoryBar()->usedFraction(), 0.5);

        // A backend that cannot tell.
        panel.setDeviceMemory({});
        QVERIFY(panel.memoryText().isEmpty());
        QCOMPARE(labelText(&panel, "deviceMemory"), QString("–"));
    }

    void cudaFailureOffersTheCpuBackend() {
        if (const QString why = cudaStarts(); !why.isEmpty()) QSKIP(qPrintable(why));
        const QString ini = m_dir.filePath("fallback.ini");
        auto window = makeWindow("fallback.ini");
        QVERIFY(loadModel(*window, m_model));

        // A file on the CPU.
        QVERIFY(transcribe(*window, jfk()));
        const QStringList first = texts(*window->transcriptModel());
        QVERIFY(!first.isEmpty());

        // CUDA chosen: applied while idle, it fails at once; the engine keeps the CPU backend.
        auto* backend = window->settingsPanel()->findChild<QComboBox*>("backend");
        QVERIFY(backend);
        backend->setCurrentIndex(backend->findData("cuda"));
        QCOMPARE(storedBackend(ini), QString("cuda"));
        MessageBar* bar = window->messageBar();
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden() && !bar->actionButton()->isHidden(), 60000);
        QCOMPARE(bar->kind(), MessageBar::Kind::Warning);
        QVERIFY2(bar->text().contains("CUDA"), qPrintable(bar->text()));
        QVERIFY2(!bar->text().contains("--backend"), qPrintable(bar->text()));  // the CLI's advice is the button here
        QVERIFY(window->cachePanel()->metrics().backend.startsWith("cpu"));

        // Another file: the job cannot start on CUDA. The offer appears; the first transcript stays.
        QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
        window->openAudio(speech30());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(0).at(0).toBool(), false);
        QVERIFY(!window->isBusy());
        QCOMPARE(bar->kind(), MessageBar::Kind::Error);
        QVERIFY2(bar->text().contains("CUDA") && bar->text().contains("speech-30s-a.wav"), qPrintable(bar->text()));
        QVERIFY(!bar->actionButton()->isHidden());
        QCOMPARE(bar->actionButton()->text(), QString("Use the CPU backend"));
        QCOMPARE(texts(*window->transcriptModel()), first);
        QCOMPARE(storedBackend(ini), QString("cuda"));

        // Accepted: the settings say CPU (shown and saved) and the same file is transcribed.
        bar->actionButton()->click();
        QVERIFY(window->isBusy());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(1).at(0).toBool(), true);
        QCOMPARE(window->settingsPanel()->settings().backend, QString("cpu"));
        QCOMPARE(backend->currentData().toString(), QString("cpu"));
        QCOMPARE(storedBackend(ini), QString("cpu"));
        QVERIFY(window->cachePanel()->metrics().backend.startsWith("cpu"));
        const hearsay::Transcript done = window->transcriptModel()->transcript();
        QCOMPARE(QString::fromStdString(done.source), speech30());
        QVERIFY(!done.segments.empty());
        QVERIFY(done.segments.back().end > 20.0);  // the 30-second file, not the 11-second one
        QVERIFY(done.statistics.audioSeconds > 29.0);
    }

    void modelLoadOffersTheCpuBackend() {
        if (const QString why = cudaStarts(); !why.isEmpty()) QSKIP(qPrintable(why));
        const QString ini = m_dir.filePath("load.ini");
        auto window = makeWindow("load.ini", "cuda");
        QCOMPARE(window->settingsPanel()->settings().backend, QString("cuda"));
        QVERIFY(!loadModel(*window, m_model));
        QVERIFY(!window->hasModel());
        MessageBar* bar = window->messageBar();
        QCOMPARE(bar->kind(), MessageBar::Kind::Error);
        QVERIFY2(bar->text().contains("CUDA"), qPrintable(bar->text()));
        QVERIFY(!bar->actionButton()->isHidden());

        QSignalSpy done(window.get(), &MainWindow::modelLoadFinished);
        bar->actionButton()->click();
        QVERIFY(done.wait(kJobTimeoutMs));
        QVERIFY(done.at(0).at(0).toBool());
        QVERIFY(window->hasModel());
        QCOMPARE(storedBackend(ini), QString("cpu"));
        QVERIFY(bar->isHidden() || bar->actionButton()->isHidden());  // the offer is gone
    }

    void otherFailuresOfferNothing() {
        // A file that cannot be read is bad input, whatever the backend: the window shows the
        // error without the offer (the backend setting says Automatic, not CPU, so only the
        // failure's kind can tell).
        if (const QString why = cudaStarts(); !why.isEmpty()) QSKIP(qPrintable(why));
        auto window = makeWindow("missing.ini", "auto");
        QVERIFY(loadModel(*window, m_model));
        QVERIFY(!transcribe(*window, m_dir.filePath("missing.wav")));
        MessageBar* bar = window->messageBar();
        QCOMPARE(bar->kind(), MessageBar::Kind::Error);
        QVERIFY2(bar->text().contains("missing.wav"), qPrintable(bar->text()));
        QVERIFY(bar->actionButton()->isHidden());
    }

    void workerReportsTheFailuresKind() {
        // The worker's failures carry core's ErrorKind and the backend they happened on, not a
        // flag: CUDA that cannot start is a device failure on CUDA (the CPU may help); a missing
        // file on the CPU is bad input (it may not); a cancelled job says so.
        if (const QString why = cudaStarts(); !why.isEmpty()) QSKIP(qPrintable(why));
        TranscriptionWorker worker;
        EngineSettings settings;
        settings.backend = "cuda";
        settings.beamSize = 1;
        settings.temperatureFallback = false;  // the random model's text: one decode a window, not 26
        QSignalSpy modelFailed(&worker, &TranscriptionWorker::modelFailed);
        worker.loadModel(m_model, settings);
        QCOMPARE(modelFailed.count(), 1);
        const EngineFailure onCuda = modelFailed.at(0).at(0).value<EngineFailure>();
        QCOMPARE(onCuda.kind, hearsay::ErrorKind::Device);
        QCOMPARE(onCuda.backend, hearsay::BackendKind::Cuda);
        QVERIFY(onCuda.cpuMayHelp());

        settings.backend = "cpu";
        QSignalSpy loaded(&worker, &TranscriptionWorker::modelLoaded);
        worker.loadModel(m_model, settings);
        QCOMPARE(loaded.count(), 1);
        QSignalSpy failed(&worker, &TranscriptionWorker::transcriptionFailed);
        worker.transcribeFile(m_dir.filePath("no-such-file.wav"), settings, 0.0, worker.controls()->newJob());
        QCOMPARE(failed.count(), 1);
        const EngineFailure missing = failed.at(0).at(0).value<EngineFailure>();
        QCOMPARE(missing.kind, hearsay::ErrorKind::BadInput);
        QCOMPARE(missing.backend, hearsay::BackendKind::Cpu);
        QVERIFY(!missing.cpuMayHelp());
        QVERIFY(missing.message.contains("no-such-file.wav"));

        // Cancel reaches the jobs ticketed before it, even one that has not started; a job
        // ticketed after it runs.
        QSignalSpy finished(&worker, &TranscriptionWorker::transcriptionFinished);
        const quint64 early = worker.controls()->newJob();
        worker.controls()->cancel();
        const quint64 late = worker.controls()->newJob();
        worker.transcribeFile(jfk(), settings, 0.0, early);
        QCOMPARE(failed.count(), 2);
        const EngineFailure cancelled = failed.at(1).at(0).value<EngineFailure>();
        QVERIFY(cancelled.cancelled());
        QVERIFY(!cancelled.cpuMayHelp());
        QCOMPARE(finished.count(), 0);
        worker.transcribeFile(jfk(), settings, 0.0, late);
        QCOMPARE(failed.count(), 2);
        QCOMPARE(finished.count(), 1);
    }

    void controllerDecidesFromTheKind() {
        // The file jobs' controller offers the CPU backend for the backend's own failures only,
        // whatever the text says.
        TranscriptModel transcript;
        QSettings stored(m_dir.filePath("controller.ini"), QSettings::IniFormat);
        EngineSettings settings;
        settings.backend = "auto";
        TranscriptionWorker worker;
        FileJobController jobs(settings, worker.controls(), &transcript, stored);
        jobs.connectWorker(&worker);
        QSignalSpy offered(&jobs, &FileJobController::cpuBackendOffered);
        QSignalSpy messages(&jobs, &FileJobController::message);
        const QString text = "CUDA error: out of memory";  // the same text each time: only the kind differs
        struct Case {
            hearsay::ErrorKind kind;
            hearsay::BackendKind backend;
            bool offer;
            MessageBar::Kind shown;
        };
        const Case cases[] = {
            {hearsay::ErrorKind::Device, hearsay::BackendKind::Cuda, true, MessageBar::Kind::Error},
            {hearsay::ErrorKind::OutOfMemory, hearsay::BackendKind::Cuda, true, MessageBar::Kind::Error},
            {hearsay::ErrorKind::OutOfMemory, hearsay::BackendKind::Cpu, false, MessageBar::Kind::Error},
            {hearsay::ErrorKind::BadInput, hearsay::BackendKind::Cuda, false, MessageBar::Kind::Error},
            {hearsay::ErrorKind::Cancelled, hearsay::BackendKind::Cuda, false, MessageBar::Kind::Information},
        };
        for (const Case& c : cases) {
            offered.clear();
            messages.clear();
            emit worker.transcriptionFailed(EngineFailure{text, c.kind, c.backend});
            QCOMPARE(offered.count(), c.offer ? 1 : 0);
            QCOMPARE(messages.count(), c.offer ? 0 : 1);
            if (c.offer) {
                QCOMPARE(offered.at(0).at(0).value<MessageBar::Kind>(), c.shown);
                QVERIFY(offered.at(0).at(1).toString().contains("CPU backend"));
            } else {
                QCOMPARE(messages.at(0).at(0).value<MessageBar::Kind>(), c.shown);
            }
            offered.clear();
            messages.clear();
            emit worker.modelFailed(EngineFailure{text, c.kind, c.backend});
            QCOMPARE(offered.count(), c.offer ? 1 : 0);
        }
    }

    void workerContinuesAJobFromTheMiddle() {
        // The worker directly (its slots run on this thread): the whole file, then the same file
        // continued from 12 s, as the window asks after a failure in the middle of a file.
        TranscriptionWorker worker;
        EngineSettings settings;
        settings.backend = "cpu";
        settings.beamSize = 1;
        settings.temperatureFallback = false;  // the random model's text: one decode a window, not 26
        QSignalSpy loaded(&worker, &TranscriptionWorker::modelLoaded);
        worker.loadModel(m_model, settings);
        QCOMPARE(loaded.count(), 1);

        QSignalSpy started(&worker, &TranscriptionWorker::transcriptionStarted);
        QSignalSpy segments(&worker, &TranscriptionWorker::segmentsReady);
        QSignalSpy progress(&worker, &TranscriptionWorker::progressChanged);
        QSignalSpy finished(&worker, &TranscriptionWorker::transcriptionFinished);
        worker.transcribeFile(speech30(), settings, 12.0);
        QCOMPARE(finished.count(), 1);
        const AudioSummary audio = started.at(0).at(0).value<AudioSummary>();
        QCOMPARE(audio.startSeconds, 12.0);
        QVERIFY(audio.durationSeconds > 29.0);  // the whole file's duration

        // Segments on the whole file's time line, none before the continuation point.
        const hearsay::Transcript transcript = finished.at(0).at(0).value<hearsay::Transcript>();
        QVERIFY(!transcript.segments.empty());
        size_t sent = 0;
        for (const auto& args : segments) {
            for (const hearsay::Segment& s : args.at(0).value<SegmentList>()) {
                // (The random model's timestamps may run past the end of the audio; not its start.)
                QVERIFY2(s.start >= 12.0 - 1e-9 && s.end >= s.start,
                         qPrintable(QString("%1 .. %2").arg(s.start).arg(s.end)));
                QVERIFY(s.seek >= 1200);  // mel frames of the whole file
                ++sent;
            }
        }
        QCOMPARE(sent, transcript.segments.size());
        for (const hearsay::Segment& s : transcript.segments) QVERIFY(s.start >= 12.0 - 1e-9);
        // Progress counts the whole file: from 12/30 on, ending at 1.
        QVERIFY(progress.count() >= 1);
        for (const auto& args : progress) QVERIFY(args.at(0).toDouble() >= 12.0 / audio.durationSeconds - 1e-9);
        QCOMPARE(progress.last().at(0).toDouble(), 1.0);
    }
};

QTEST_MAIN(TestBackendFallback)
#include "tst_backend_fallback.moc"
