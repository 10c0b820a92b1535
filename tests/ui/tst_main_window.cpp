// The real MainWindow and its worker thread, offscreen: a random 64x2x2 model made by
// hearsay-cli, jfk.wav transcribed with segments arriving per window, cache bytes checked
// against 2·layers·n_text_ctx·d·4·beams, the cache switches toggled idle and mid-run, beam size
// applied without a restart and persisted, Cancel, drag-and-drop, exports, and bad input
// (corrupt models, unreadable audio) reported as messages while the window stays usable.
#include "ui_test_support.h"

#include "ui/cache_panel.h"
#include "ui/engine_settings.h"
#include "ui/layer_bar_chart.h"
#include "ui/main_window.h"
#include "ui/message_bar.h"
#include "ui/settings_panel.h"
#include "ui/transcript_model.h"

#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace hearsay::ui;

namespace {

using namespace hearsay::test;

constexpr size_t kLayers = 2, kWidth = 64, kTextCtx = 448, kAudioCtx = 1500;

size_t selfBytes(size_t beams) { return 2 * kLayers * kTextCtx * kWidth * sizeof(float) * beams; }
// The CPU backend with the default fp16 keeps the cross cache in half.
size_t crossBytes() { return 2 * kLayers * kAudioCtx * kWidth * sizeof(uint16_t); }

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_model;

    std::unique_ptr<MainWindow> makeWindow(const QString& settingsName = "settings.ini") {
        auto settings = std::make_unique<QSettings>(m_dir.filePath(settingsName), QSettings::IniFormat);
        return std::make_unique<MainWindow>(std::move(settings));
    }
    // The random model's text always fails the reference's checks, so each window is decoded at
    // every fallback temperature (26 decodes): the checks that need no long run switch it off.
    static void withoutFallback(MainWindow& window) {
        window.settingsPanel()->temperatureFallbackSwitch()->setChecked(false);
        QVERIFY(!window.settingsPanel()->settings().temperatureFallback);
    }


    // Waits until the panel shows metrics satisfying `pred` (they come as queued signals).
    template <class Pred>
    bool waitForMetrics(MainWindow& window, Pred pred) {
        QSignalSpy shown(&window, &MainWindow::metricsShown);
        if (pred(window.cachePanel()->metrics())) return true;
        for (int i = 0; i < 100; ++i) {
            if (!shown.wait(kJobTimeoutMs)) return false;
            if (pred(window.cachePanel()->metrics())) return true;
        }
        return false;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(jfk()), qPrintable(jfk()));
        m_model = m_dir.filePath("model-64x2x2");
        const QString problem = makeTestModel(m_model);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(QFile::exists(m_model + "/model.safetensors"));
    }

    void transcribesAFileWithLiveCacheFigures() {
        auto window = makeWindow();
        QVERIFY(!window->hasModel());
        QVERIFY(loadModel(*window, m_model));
        QVERIFY(window->hasModel());

        // The session exists from the load on: caches allocated for max(beam size, best-of) beams.
        const EngineSettings settings = window->settingsPanel()->settings();
        QCOMPARE(settings.beamSize, 5);
        const size_t beams = size_t(settings.sessionBeams());
        QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return !m.cache.layers.empty(); }));
        const EngineMetrics loaded = window->cachePanel()->metrics();
        QCOMPARE(loaded.cache.layers.size(), kLayers);
        QCOMPARE(loaded.cache.selfAllocated, selfBytes(beams));
        QCOMPARE(loaded.cache.crossAllocated, crossBytes());
        QCOMPARE(loaded.cache.layers[1].selfAllocated, selfBytes(beams) / kLayers);
        QCOMPARE(labelText(window->cachePanel(), "selfAllocated"), formatBytes(selfBytes(beams)));
        QCOMPARE(labelText(window->cachePanel(), "selfCacheState"), QString("on"));
        QVERIFY(labelText(window->cachePanel(), "modelSummary").contains("width 64"));

        QSignalSpy rows(window->transcriptModel(), &QAbstractItemModel::rowsInserted);
        QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
        QSignalSpy shown(window.get(), &MainWindow::metricsShown);
        window->openAudio(jfk());
        QVERIFY(window->isBusy());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(0).at(0).toBool(), true);
        QVERIFY(!window->isBusy());

        // Segments arrived while the job ran (per window), before the end was reported.
        QVERIFY(rows.count() >= 1);
        QVERIFY(window->transcriptModel()->rowCount() >= 1);
        for (int r = 0; r < window->transcriptModel()->rowCount(); ++r) {
            const hearsay::Segment& s = window->transcriptModel()->segment(r);
            QVERIFY(s.end >= s.start);
            QVERIFY(!QString::fromStdString(s.text).trimmed().isEmpty());
        }
        // Metrics were reported during the run, then the final figures.
        bool sawRunning = false;
        for (const auto& args : shown) sawRunning |= args.at(0).value<EngineMetrics>().running;
        QVERIFY(sawRunning);
        const EngineMetrics m = window->cachePanel()->metrics();
        QVERIFY(!m.running);
        QCOMPARE(m.cache.selfAllocated, selfBytes(beams));
        QCOMPARE(m.cache.crossAllocated, crossBytes());
        QCOMPARE(m.cache.crossInUse, crossBytes());
        QVERIFY(m.cache.selfInUse > 0);
        QVERIFY(m.cache.selfInUse <= m.cache.selfAllocated);
        QVERIFY(m.cache.positions > 0);
        QVERIFY(m.windows >= 1);
        QVERIFY(m.lastEncoderMs > 0.0);
        QVERIFY(m.decodeCalls > 0);
        QVERIFY(m.decodeMs > 0.0);
        QVERIFY(m.tokensPerSecond() > 0.0);
        QVERIFY(qAbs(m.audioSeconds - 11.0) < 0.01);
        QVERIFY(m.realTimeFactor() > 0.0);
        QVERIFY(labelText(window->cachePanel(), "decodeMsPerToken").endsWith("ms/token"));
        QCOMPARE(window->cachePanel()->chart()->layers().size(), kLayers);

        // Exports go through the core exporters and carry the rows.
        const QString srt = m_dir.filePath("jfk.srt"), json = m_dir.filePath("jfk.json");
        QVERIFY(window->exportTranscript(srt, hearsay::ExportFormat::Srt));
        QVERIFY(window->exportTranscript(json, hearsay::ExportFormat::Json));
        QFile srtFile(srt), jsonFile(json);
        QVERIFY(srtFile.open(QIODevice::ReadOnly) && jsonFile.open(QIODevice::ReadOnly));
        const QString srtText = QString::fromUtf8(srtFile.readAll());
        const QString firstText = window->transcriptModel()->data(window->transcriptModel()->index(0, 2)).toString();
        QVERIFY2(srtText.contains("-->") && srtText.contains(firstText), qPrintable(srtText));
        QVERIFY(QString::fromUtf8(jsonFile.readAll()).contains("\"segments\""));
        // An unwritable path is a message, not a crash.
        QVERIFY(!window->exportTranscript(m_dir.filePath("no/such/dir/x.txt"), hearsay::ExportFormat::Txt));
        QCOMPARE(window->messageBar()->kind(), MessageBar::Kind::Error);
    }

    void cacheSwitchesApplyWhenIdle() {
        auto window = makeWindow();
        QVERIFY(loadModel(*window, m_model));
        const size_t beams = size_t(window->settingsPanel()->settings().sessionBeams());
        CachePanel* panel = window->cachePanel();

        window->settingsPanel()->selfCacheSwitch()->setChecked(false);
        QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return !m.selfCache; }));
        QCOMPARE(labelText(panel, "selfCacheState"), QString("off"));
        QCOMPARE(panel->metrics().cache.selfAllocated, size_t(0));
        QCOMPARE(labelText(panel, "selfAllocated"), QString("0 B"));
        QCOMPARE(panel->metrics().cache.crossAllocated, crossBytes());  // the other one untouched

        window->settingsPanel()->crossCacheSwitch()->setChecked(false);
        QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return !m.crossCache; }));
        QCOMPARE(labelText(panel, "crossCacheState"), QString("off"));
        QCOMPARE(panel->metrics().cache.crossAllocated, size_t(0));

        window->settingsPanel()->selfCacheSwitch()->setChecked(true);
        window->settingsPanel()->crossCacheSwitch()->setChecked(true);
        QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return m.selfCache && m.crossCache; }));
        QCOMPARE(labelText(panel, "selfCacheState"), QString("on"));
        QCOMPARE(labelText(panel, "crossCacheState"), QString("on"));
        QCOMPARE(panel->metrics().cache.selfAllocated, selfBytes(beams));
        // The cross cache is refilled from the encoder output: at once when a window is encoded,
        // else at the next window (none yet since the start); never a size other than the formula.
        const size_t cross = panel->metrics().cache.crossAllocated;
        QVERIFY2(cross == 0 || cross == crossBytes(), qPrintable(QString::number(cross)));
    }

    void cacheSwitchAppliesDuringARun() {
        auto window = makeWindow();
        QVERIFY(loadModel(*window, m_model));
        withoutFallback(*window);  // one decode of the window lasts long enough to switch during it
        QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
        // Switch the self cache off as soon as the run reports itself, while it decodes.
        bool toggled = false, reportedOffWhileRunning = false;
        connect(window.get(), &MainWindow::metricsShown, this, [&](const EngineMetrics& m) {
            if (m.running && !toggled) {
                toggled = true;
                window->settingsPanel()->selfCacheSwitch()->setChecked(false);
            } else if (m.running && toggled && !m.selfCache) {
                reportedOffWhileRunning = true;
            }
        });
        window->openAudio(jfk());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QVERIFY(ended.at(0).at(0).toBool());
        QVERIFY(toggled);
        QVERIFY(reportedOffWhileRunning);
        QVERIFY(window->transcriptModel()->rowCount() >= 1);
        const EngineMetrics m = window->cachePanel()->metrics();
        QVERIFY(!m.selfCache);
        QCOMPARE(m.cache.selfAllocated, size_t(0));
        QCOMPARE(m.cache.selfInUse, size_t(0));
        QCOMPARE(labelText(window->cachePanel(), "selfCacheState"), QString("off"));
    }

    void beamSizeAppliesWithoutRestartAndPersists() {
        {
            auto window = makeWindow("beams.ini");
            QVERIFY(loadModel(*window, m_model));
            QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return m.weightUploads > 0; }));
            // The engine's weights: one buffer per tensor of the network (11 outside the layers, 15
            // per encoder layer, 24 per decoder layer), float32 on the CPU.
            const EngineMetrics loaded = window->cachePanel()->metrics();
            QCOMPARE(loaded.weightUploads, size_t(11 + 39 * kLayers));
            QVERIFY(loaded.weightBytes > 0);
            QCOMPARE(labelText(window->cachePanel(), "weightBytes"), formatBytes(loaded.weightBytes));
            window->settingsPanel()->findChild<QSpinBox*>("beamSize")->setValue(8);
            QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return m.maxBeams == 8; }));
            QCOMPARE(window->cachePanel()->metrics().cache.selfAllocated, selfBytes(8));
            // A new session over the same weights: nothing uploaded again.
            QCOMPARE(window->cachePanel()->metrics().weightUploads, loaded.weightUploads);
            QCOMPARE(window->cachePanel()->metrics().weightBytes, loaded.weightBytes);
            window->settingsPanel()->crossCacheSwitch()->setChecked(false);
            QVERIFY(waitForMetrics(*window, [](const EngineMetrics& m) { return !m.crossCache; }));
            QCOMPARE(window->cachePanel()->metrics().weightUploads, loaded.weightUploads);
        }
        QSettings stored(m_dir.filePath("beams.ini"), QSettings::IniFormat);
        const EngineSettings loaded = EngineSettings::load(stored);
        QCOMPARE(loaded.beamSize, 8);
        QCOMPARE(loaded.crossCache, false);
        QCOMPARE(loaded.selfCache, true);
        QCOMPARE(stored.value("session/lastModel").toString(), m_model);

        // A new window starts with them, and the model of the last session can be reopened.
        auto again = makeWindow("beams.ini");
        QCOMPARE(again->settingsPanel()->settings().beamSize, 8);
        QVERIFY(!again->settingsPanel()->crossCacheSwitch()->isChecked());
        QSignalSpy done(again.get(), &MainWindow::modelLoadFinished);
        again->reopenLastModel();
        QVERIFY(done.wait(kJobTimeoutMs));
        QVERIFY(done.at(0).at(0).toBool());
        QVERIFY(waitForMetrics(*again, [](const EngineMetrics& m) { return m.maxBeams == 8; }));
        QCOMPARE(again->cachePanel()->metrics().cache.crossAllocated, size_t(0));
        QCOMPARE(again->cachePanel()->metrics().cache.selfAllocated, selfBytes(8));
    }

    void cancelKeepsTheWindowUsable() {
        auto window = makeWindow();
        QVERIFY(loadModel(*window, m_model));
        QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
        // Dropped onto the window, like a file from a file manager.
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(speech30())});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window.get(), &drop);
        QVERIFY(window->isBusy());
        window->cancelTranscription();
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(0).at(0).toBool(), false);
        QCOMPARE(window->messageBar()->kind(), MessageBar::Kind::Information);
        QVERIFY2(window->messageBar()->text().contains("cancelled", Qt::CaseInsensitive),
                 qPrintable(window->messageBar()->text()));
        QVERIFY(!window->isBusy());

        // The next file transcribes normally.
        withoutFallback(*window);
        window->openAudio(jfk());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(1).at(0).toBool(), true);
        QVERIFY(window->transcriptModel()->rowCount() >= 1);
    }

    void badInputBecomesAMessage() {
        auto window = makeWindow();
        // Audio before any model.
        window->openAudio(jfk());
        QVERIFY(!window->isBusy());
        QCOMPARE(window->messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY(window->messageBar()->text().contains("model", Qt::CaseInsensitive));

        // A ggml file of garbage.
        const QString garbage = m_dir.filePath("garbage.bin");
        {
            QFile f(garbage);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(4096, '\x5a'));
        }
        QVERIFY(!loadModel(*window, garbage));
        QVERIFY(!window->hasModel());
        QCOMPARE(window->messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY2(window->messageBar()->text().contains("garbage.bin"), qPrintable(window->messageBar()->text()));

        // A checkpoint whose weights file is cut short.
        const QString truncated = m_dir.filePath("truncated-model");
        QVERIFY(QDir().mkpath(truncated));
        for (const QString& name : QDir(m_model).entryList(QDir::Files)) QVERIFY(QFile::copy(m_model + "/" + name, truncated + "/" + name));
        {
            QFile f(truncated + "/model.safetensors");
            QVERIFY(f.resize(f.size() / 2));
        }
        QVERIFY(!loadModel(*window, truncated));
        QVERIFY(!window->messageBar()->text().isEmpty());

        // A good model, then a bad one: the good one stays.
        QVERIFY(loadModel(*window, m_model));
        QVERIFY(!loadModel(*window, m_dir.filePath("no-such-model")));
        QVERIFY(window->hasModel());
        QVERIFY(window->messageBar()->text().contains("previous model stays loaded"));

        // Unreadable audio: missing, and not audio at all.
        QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
        window->openAudio(m_dir.filePath("missing.wav"));
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(0).at(0).toBool(), false);
        QCOMPARE(window->messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY2(window->messageBar()->text().contains("missing.wav"), qPrintable(window->messageBar()->text()));
        window->openAudio(garbage);
        QVERIFY(ended.wait(kJobTimeoutMs));
        QCOMPARE(ended.at(1).at(0).toBool(), false);
        QVERIFY(window->messageBar()->text().contains("garbage.bin"));
        QVERIFY(!window->isBusy());
    }

    // A settings file of random bytes, and one whose every value is nonsense: the window starts
    // with the defaults, stays usable, and what the user changes afterwards is saved over it.
    void garbageSettingsFile() {
        const EngineSettings defaults;
        const QString binary = m_dir.filePath("binary.ini");
        {
            QFile f(binary);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray bytes(8192, '\0');
            quint32 x = 12345;
            for (char& c : bytes) c = char((x = x * 1664525u + 1013904223u) >> 24);
            bytes.insert(100, "[engine]\nbackend=\xff\xfe\nthreads=\x01\n[\n=\n");
            f.write(bytes);
        }
        const QString values = m_dir.filePath("values.ini");
        {
            QFile f(values);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
            f.write("[engine]\nbackend=quantum\nthreads=-3\nprecision=fp8\nstepGraphs=7\n"
                    "[decoding]\nlanguage=klingon\ntask=sing\nbeamSize=1000000000000\ntemperatureFallback=sometimes\ninitialPrompt=@ByteArray(\\0\\xff)\n"
                    "[cache]\nselfAttention=@Variant(\\0\\0\\0\\x7f\\0\\0\\0\\xff)\ncrossAttention=\n"
                    "[dictation]\ninputDevice=no such device\nstepSeconds=nan\nvadThreshold=inf\nshowTentative=perhaps\n"
                    "commit=whenever\nspokenCommands=perhaps\n"
                    "[window]\ngeometry=@ByteArray(garbage)\nstate=@ByteArray(\\x1\\x2\\x3)\n"
                    "[session]\nlastModel=/no/such/model\nmodelFolder=\\0\n"
                    "[models]\nfolders=42\n[view]\nsegmentTimes=@Rect(1 2 3)\n");
        }
        for (const QString& name : {QString("binary.ini"), QString("values.ini")}) {
            {
                auto window = makeWindow(name);
                window->show();
                const EngineSettings shown = window->settingsPanel()->settings();
                QCOMPARE(shown.backend, defaults.backend);
                QCOMPARE(shown.threads, defaults.threads);
                QCOMPARE(shown.beamSize, defaults.beamSize);
                QCOMPARE(shown.temperatureFallback, defaults.temperatureFallback);
                QCOMPARE(shown.language, defaults.language);
                QCOMPARE(shown.precision, defaults.precision);
                QCOMPARE(shown.stepSeconds, defaults.stepSeconds);
                QCOMPARE(shown.vadThreshold, defaults.vadThreshold);
                QCOMPARE(shown.commit, defaults.commit);
                QCOMPARE(shown.spokenCommands, defaults.spokenCommands);
                QCOMPARE(shown.showTentative, defaults.showTentative);
                // The last model it names is not there: a message, nothing loaded, nothing stuck.
                window->reopenLastModel();
                QTRY_VERIFY(!window->isBusy());
                QVERIFY(!window->hasModel());
                // Usable: a model loads and a file transcribes.
                QVERIFY(loadModel(*window, m_model));
                withoutFallback(*window);
                QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
                window->openAudio(jfk());
                QVERIFY(ended.wait(kJobTimeoutMs));
                QCOMPARE(ended.at(0).at(0).toBool(), true);
                window->settingsPanel()->findChild<QSpinBox*>("beamSize")->setValue(3);
                QTRY_COMPARE(window->settingsPanel()->settings().beamSize, 3);
                window->close();
            }
            // What was changed was saved, and the file reads back.
            QSettings reread(m_dir.filePath(name), QSettings::IniFormat);
            QCOMPARE(reread.status(), QSettings::NoError);
            const EngineSettings saved = EngineSettings::load(reread);
            QVERIFY2(saved.beamSize == 3, qPrintable(name));
            QVERIFY2(!saved.temperatureFallback, qPrintable(name));
            QCOMPARE(reread.value("session/lastModel").toString(), m_model);
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
