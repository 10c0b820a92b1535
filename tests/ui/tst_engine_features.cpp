// The precision and decode-step-graph settings: stored and loaded (bad values fall back), shown
// and edited by the settings panel, and a real transcription of jfk.wav on a random 64x2x2 model
// with step graphs on (the cache panel counts recordings and replays), off ("off"), and
// switched off mid-run, with the same transcript every way.
#include "ui_test_support.h"

#include "ui/cache_panel.h"
#include "ui/engine_settings.h"
#include "ui/main_window.h"
#include "ui/settings_panel.h"
#include "ui/transcript_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace hearsay::ui;

namespace {

using namespace hearsay::test;

} // namespace

class TestEngineFeatures : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_model;
    QString m_transcript;  // jfk.wav's text with step graphs on (stepGraphsOnAndOffTranscribeTheSame)


    // Transcribes jfk.wav; the transcript's text, or a null string when the job failed.
    // The text of this file's rows (a file's transcript follows the earlier text in the window).
    QString transcribeJfk(MainWindow& window) {
        QSignalSpy ended(&window, &MainWindow::transcriptionEnded);
        const int before = window.transcriptModel()->segmentCount();
        window.openAudio(jfk());
        if (!ended.wait(kJobTimeoutMs) || !ended.at(0).at(0).toBool()) return QString();
        QString text;
        for (int r = before; r < window.transcriptModel()->segmentCount(); ++r)
            text += QString::fromStdString(window.transcriptModel()->segment(r).text) + '\n';
        return text;
    }

    // A window whose stored settings (at `ini`) choose the CPU backend and no temperature fallback
    // (the random model's text always fails the reference's checks: one decode a window, not 26),
    // the rest default.
    static std::unique_ptr<MainWindow> cpuWindow(const QString& ini) {
        {
            QSettings stored(ini, QSettings::IniFormat);
            EngineSettings s;
            s.backend = "cpu";
            s.temperatureFallback = false;
            s.save(stored);
        }
        return std::make_unique<MainWindow>(std::make_unique<QSettings>(ini, QSettings::IniFormat));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(jfk()), qPrintable(jfk()));
        m_model = m_dir.filePath("model-64x2x2");
        const QString problem = makeTestModel(m_model);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void settingsRoundTrip() {
        const EngineSettings defaults;
        QCOMPARE(defaults.precision, QString("fp16"));
        QCOMPARE(defaults.stepGraphs, true);

        EngineSettings s;
        s.precision = "fp32";
        s.stepGraphs = false;
        s.backend = "cpu";
        s.temperatureFallback = false;
        {
            QSettings stored(m_dir.filePath("roundtrip.ini"), QSettings::IniFormat);
            s.save(stored);
        }
        QSettings reread(m_dir.filePath("roundtrip.ini"), QSettings::IniFormat);
        const EngineSettings loaded = EngineSettings::load(reread);
        QCOMPARE(loaded.precision, QString("fp32"));
        QCOMPARE(loaded.stepGraphs, false);
        QVERIFY(loaded == s);

        // Out-of-range stored values fall back to the defaults; the case of a valid one does not matter.
        QSettings bad(m_dir.filePath("bad.ini"), QSettings::IniFormat);
        bad.setValue("engine/precision", "fp8");
        bad.setValue("engine/stepGraphs", "maybe");
        QCOMPARE(EngineSettings::load(bad).precision, QString("fp16"));
        QCOMPARE(EngineSettings::load(bad).stepGraphs, true);
        bad.setValue("engine/precision", "FP32");
        bad.setValue("engine/stepGraphs", "false");
        QCOMPARE(EngineSettings::load(bad).precision, QString("fp32"));
        QCOMPARE(EngineSettings::load(bad).stepGraphs, false);
        QSettings empty(m_dir.filePath("empty.ini"), QSettings::IniFormat);
        QCOMPARE(EngineSettings::load(empty).precision, QString("fp16"));
        QCOMPARE(EngineSettings::load(empty).stepGraphs, true);
    }

    void panelShowsAndEditsTheSettings() {
        SettingsPanel panel;
        QSignalSpy changed(&panel, &SettingsPanel::settingsChanged);
        EngineSettings s;
        s.backend = "cuda";
        s.precision = "fp32";
        s.stepGraphs = false;
        panel.setSettings(s);
        QCOMPARE(changed.count(), 0);  // showing settings is not a change
        QCOMPARE(panel.precisionBox()->currentData().toString(), QString("fp32"));
        QVERIFY(!panel.stepGraphsSwitch()->isChecked());
        QVERIFY(panel.precisionBox()->isEnabled());
        QVERIFY(panel.settings() == s);

        panel.stepGraphsSwitch()->click();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<EngineSettings>().stepGraphs, true);

        panel.precisionBox()->setCurrentIndex(panel.precisionBox()->findData("fp16"));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.at(1).at(0).value<EngineSettings>().precision, QString("fp16"));

        // On the CPU the choice is the cross-attention cache's precision: the box stays and says so.
        panel.backendBox()->setCurrentIndex(panel.backendBox()->findData("cpu"));
        QVERIFY(panel.precisionBox()->isEnabled());
        QVERIFY(panel.precisionBox()->toolTip().contains("cross-attention cache"));
        QCOMPARE(panel.settings().precision, QString("fp16"));
        panel.backendBox()->setCurrentIndex(panel.backendBox()->findData("auto"));
        QVERIFY(panel.precisionBox()->isEnabled());
        QVERIFY(!panel.stepGraphsSwitch()->toolTip().isEmpty());
    }

    void stepGraphsOnAndOffTranscribeTheSame() {
        const QString ini = m_dir.filePath("graphs.ini");
        auto window = cpuWindow(ini);
        QVERIFY(window->settingsPanel()->stepGraphsSwitch()->isChecked());
        QVERIFY(loadModel(*window, m_model));

        const QString withGraphs = transcribeJfk(*window);
        QVERIFY(!withGraphs.trimmed().isEmpty());
        const EngineMetrics on = window->cachePanel()->metrics();
        QVERIFY(on.stepGraphs);
        QVERIFY2(on.stepRecordings > 0, qPrintable(QString::number(on.stepRecordings)));
        QVERIFY2(on.stepReplays > 0, qPrintable(QString::number(on.stepReplays)));
        QVERIFY(on.stepReplays <= on.decodeCalls);
        const QString shown = labelText(window->cachePanel(), "stepGraphs");
        qInfo("step graphs on: %s in %d decoder steps", qPrintable(shown), on.decodeCalls);
        const auto match = QRegularExpression("^(\\d+) recorded, (\\d+) replayed$").match(shown);
        QVERIFY2(match.hasMatch(), qPrintable(shown));
        QCOMPARE(match.captured(1).toInt(), on.stepRecordings);
        QCOMPARE(match.captured(2).toInt(), on.stepReplays);
        // The CPU backend with the default fp16: float32 arithmetic, the cross cache in half.
        QCOMPARE(labelText(window->cachePanel(), "precision"), QString("fp16"));

        // Off from the panel: saved, and the next file runs every step eagerly.
        window->settingsPanel()->stepGraphsSwitch()->click();
        QCOMPARE(QSettings(ini, QSettings::IniFormat).value("engine/stepGraphs").toBool(), false);
        // Idle: the worker applies it at once and reports it.
        QSignalSpy shownOff(window.get(), &MainWindow::metricsShown);
        for (int i = 0; i < 20 && window->cachePanel()->metrics().stepGraphs; ++i) QVERIFY(shownOff.wait(kJobTimeoutMs));
        QVERIFY(!window->cachePanel()->metrics().stepGraphs);
        QCOMPARE(labelText(window->cachePanel(), "stepGraphs"), QString("off"));
        const QString withoutGraphs = transcribeJfk(*window);
        const EngineMetrics off = window->cachePanel()->metrics();
        QVERIFY(!off.stepGraphs);
        QCOMPARE(off.stepRecordings, 0);
        QCOMPARE(off.stepReplays, 0);
        QVERIFY(off.decodeCalls > 0);
        QCOMPARE(labelText(window->cachePanel(), "stepGraphs"), QString("off"));
        QCOMPARE(withoutGraphs, withGraphs);
        m_transcript = withGraphs;
    }

    void stepGraphsSwitchOffDuringARun() {
        QVERIFY(!m_transcript.isEmpty());
        const QString ini = m_dir.filePath("midrun.ini");
        auto window = cpuWindow(ini);
        QVERIFY(loadModel(*window, m_model));
        // Off once the live figures show replays (mid-window), and reported off while it runs.
        bool toggled = false, reportedOffWhileRunning = false;
        int replaysWhenToggled = 0;
        connect(window.get(), &MainWindow::metricsShown, this, [&](const EngineMetrics& m) {
            if (m.running && !toggled && m.stepReplays > 0) {
                toggled = true;
                replaysWhenToggled = m.stepReplays;
                QVERIFY(labelText(window->cachePanel(), "stepGraphs").endsWith(" replayed"));
                window->settingsPanel()->stepGraphsSwitch()->setChecked(false);
            } else if (m.running && toggled && !m.stepGraphs) {
                reportedOffWhileRunning = true;
            }
        });
        QSignalSpy ended(window.get(), &MainWindow::transcriptionEnded);
        window->openAudio(jfk());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QVERIFY(ended.at(0).at(0).toBool());
        QVERIFY(toggled);
        QVERIFY(reportedOffWhileRunning);
        const EngineMetrics m = window->cachePanel()->metrics();
        QVERIFY(!m.stepGraphs);
        QVERIFY(m.stepReplays >= replaysWhenToggled);
        QVERIFY(m.stepReplays < m.decodeCalls);  // the steps after the switch ran eagerly
        qInfo("switched off after %d replays; %d replays in %d steps", replaysWhenToggled, m.stepReplays, m.decodeCalls);
        QCOMPARE(labelText(window->cachePanel(), "stepGraphs"), QString("off"));
        // The same tokens with the switch flipped mid-window.
        QCOMPARE(transcriptText(*window->transcriptModel()), m_transcript);
    }
};

QTEST_MAIN(TestEngineFeatures)
#include "tst_engine_features.moc"
