// Dictation in the window through a real microphone: a PulseAudio server started by the test,
// whose null sink's monitor is the default source (paplay plays jfk.wav into it), PortAudio
// capture, the streaming session and the real tiny.en model. The spoken sentence is committed;
// the device list marks the default; a chosen device that is gone is reported, and Record with it
// says so instead of failing silently.
#include "core/pulse_server.h"
#include "core/real_models.h"
#include "core/transcript/word_error_rate.h"
#include "ui/level_meter_bar.h"
#include "ui/settings_panel.h"
#include "ui_test_support.h"

#include <QComboBox>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace hearsay;
using namespace hearsay::test;

class TestDictationMicrophone : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    PulseServer m_server;
    QString m_model;

    std::unique_ptr<ui::MainWindow> makeWindow(const QString& device) {
        auto settings = std::make_unique<QSettings>(m_dir.filePath("settings.ini"), QSettings::IniFormat);
        settings->setValue("engine/backend", "cpu");
        settings->setValue("decoding/beamSize", 1);
        settings->setValue("dictation/inputDevice", device);
        return std::make_unique<ui::MainWindow>(std::move(settings));
    }

private slots:
    void initTestCase() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QVERIFY(m_dir.isValid());
        qputenv("XDG_STATE_HOME", m_dir.filePath("state").toUtf8());
        if (const QString why = m_server.start(); !why.isEmpty()) QFAIL(qPrintable(why));
        m_model = QString::fromStdString((real_models::directory() / "tiny.en").string());
    }

    void dictatesWhatTheMicrophoneHears() {
        auto window = makeWindow(QString());
        QComboBox* devices = window->settingsPanel()->inputDeviceBox();
        QTRY_VERIFY_WITH_TIMEOUT(devices->count() > 1, 20000);  // PortAudio's list arrived
        bool defaultMarked = false;
        for (int i = 0; i < devices->count(); ++i) defaultMarked = defaultMarked || devices->itemText(i).endsWith("(default)");
        QVERIFY2(defaultMarked, "the default input device is not marked");
        QVERIFY(loadModel(*window, m_model));

        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        QSignalSpy started(window.get(), &ui::MainWindow::dictationStarted);
        window->recordAction()->trigger();  // as the user: Record
        QVERIFY(window->isDictating());
        QVERIFY2(started.wait(30000) || started.count() == 1, "dictation did not start");
        QTRY_VERIFY_WITH_TIMEOUT(window->levelMeter()->level().windows > 0, 20000);  // the device delivers
        QVERIFY(m_server.play(HEARSAY_SHARED_DATA_DIR "/jfk.wav"));
        QTRY_VERIFY_WITH_TIMEOUT(!m_server.playing(), 60000);
        QTest::qWait(1500);  // the end of the sentence reaches the ring buffer
        window->recordAction()->trigger();  // Stop
        QVERIFY2(ended.wait(kJobTimeoutMs), "the dictation did not end after Stop");
        QVERIFY2(ended.at(0).at(0).toBool(), window->lastDictationSummary().error.c_str());
        QVERIFY(window->levelMeter()->changes() > 10);

        QString text;
        for (int r = 0; r < window->transcriptModel()->segmentCount(); ++r)
            text += QString::fromStdString(window->transcriptModel()->segment(r).text);
        // Heard live through two resamplers, with the windows cut where the machine's pace puts
        // them: a word or two may differ ("Ask not! Like your country can do for you!" was seen
        // on a loaded machine), the sentence must be there.
        const WordErrors w = wordErrors("and so my fellow americans ask not what your country can do for you ask what you "
                                        "can do for your country",
                                        text.toStdString());
        qInfo("heard \"%s\": %d word errors of %d", qPrintable(text), w.errors, w.referenceWords);
        QVERIFY2(w.errors <= 3, qPrintable(text));
    }

    void aVanishedDeviceIsReported() {
        const QString gone = "ALSA: a microphone that was unplugged";
        auto window = makeWindow(gone);
        QComboBox* devices = window->settingsPanel()->inputDeviceBox();
        QTRY_VERIFY_WITH_TIMEOUT(devices->currentText().contains("(not found)"), 20000);
        QVERIFY(window->messageBar()->isVisibleTo(window.get()));
        QVERIFY(labelText(window->messageBar(), "messageText").contains("no longer available"));
        QVERIFY(loadModel(*window, m_model));
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        window->startDictation();
        QVERIFY(ended.wait(30000));
        QVERIFY(!ended.at(0).at(0).toBool());
        QVERIFY(!window->isBusy());
        QVERIFY2(labelText(window->messageBar(), "messageText").contains("unplugged"),
                 qPrintable(labelText(window->messageBar(), "messageText")));
    }
};

QTEST_MAIN(TestDictationMicrophone)
#include "tst_dictation_microphone.moc"
