// The dictation state machine without a window or an engine: the phases of a run (a Stop pressed
// while the run starts stays a Stop), the request built from the settings, the step figures
// summed over a run, and the journals: the window's own made at the first run, a crashed run's
// text offered, adopted into the own journal on restore (on disk, locked, nothing lost), or
// removed on discard; a normal close removes the own journal.
#include "ui/dictation_controller.h"

#include "core/transcript/dictation_journal.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace hearsay;
using namespace hearsay::ui;
using Phase = DictationController::Phase;

class TestDictationController : public QObject {
    Q_OBJECT

    QTemporaryDir m_state;

    // A journal as a run that crashed leaves it: its text on disk, no process holding it.
    std::filesystem::path leaveJournal(const std::string& text) {
        auto lease = JournalStore().create();
        if (!lease) qFatal("%s", lease.message().c_str());
        const std::filesystem::path path = lease.value().path();
        {
            auto journal = DictationJournal::open(path);
            if (!journal) qFatal("%s", journal.message().c_str());
            if (!journal.value().beginRun("file crash.wav at 1x") || !journal.value().commit(text, 1.0, 2.5, true)) {
                qFatal("cannot write %s", path.c_str());
            }
        }
        return path;  // the lease ends here: unlocked, the file stays
    }

private slots:
    void initTestCase() {
        QVERIFY(m_state.isValid());
        qputenv("XDG_STATE_HOME", m_state.path().toUtf8());  // JournalStore's directory, this test's own
    }

    void phasesFollowTheRun() {
        DictationController c;
        QCOMPARE(c.phase(), Phase::Idle);
        QVERIFY(!c.stop());  // nothing to stop
        EngineSettings settings;
        settings.inputDevice = "ALSA: pulse";
        settings.stepSeconds = 0.5;
        settings.vadThreshold = 0.4;
        settings.commit = "utterance";
        settings.showTentative = false;
        QString problem;
        const DictationRequest request = c.begin(settings, QString(), 1.0, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(c.phase(), Phase::Starting);
        QCOMPARE(request.device, settings.inputDevice);
        QCOMPARE(request.stepSeconds, 0.5);
        QCOMPARE(request.vadThreshold, 0.4);
        QCOMPARE(request.commit, QString("utterance"));
        QCOMPARE(request.showTentative, false);
        QVERIFY(request.control && !request.control->stop);

        EngineMetrics shown;
        shown.backend = "cpu";
        shown.windows = 7;
        shown.decodeMs = 12.0;
        shown.audioSeconds = 30.0;
        const EngineMetrics fresh = c.started({"file jfk.wav at 1x"}, shown);
        QCOMPARE(c.phase(), Phase::Listening);
        QCOMPARE(c.source(), QString("file jfk.wav at 1x"));
        QCOMPARE(fresh.backend, QString("cpu"));  // kept
        QCOMPARE(fresh.windows, 0);               // the run's counters from zero
        QCOMPARE(fresh.decodeMs, 0.0);
        QCOMPARE(fresh.audioSeconds, 0.0);
        QVERIFY(fresh.running);

        QVERIFY(c.stop());
        QCOMPARE(c.phase(), Phase::Stopping);
        QVERIFY(request.control->stop);  // the worker reads it
        QVERIFY(!c.stop());              // once
        StreamingSummary summary;
        summary.text = " And so, my fellow Americans";
        c.finished(summary);
        QCOMPARE(c.phase(), Phase::Idle);
        QCOMPARE(c.lastSummary().text, summary.text);

        c.begin(settings, "jfk.wav", 2.0, nullptr);
        c.failed();  // the device could not be opened
        QCOMPARE(c.phase(), Phase::Idle);
        QVERIFY(!c.stop());
        c.closeNormally();
    }

    void stopWhileStartingStaysStopping() {
        DictationController c;
        const DictationRequest request = c.begin(EngineSettings{}, "jfk.wav", 1.0, nullptr);
        QVERIFY(c.stop());
        c.started({"file jfk.wav at 1x"}, EngineMetrics{});
        QCOMPARE(c.phase(), Phase::Stopping);
        QVERIFY(request.control->stop);
        c.finished({});
        c.closeNormally();
    }

    void stepsAddUp() {
        EngineMetrics shown;
        shown.cache.device.known = true;
        shown.cache.device.totalBytes = 1000;
        StreamingStep step;
        step.decoded = true;
        step.encoderMs = 40.0;
        step.decodeMs = 30.0;
        step.tokens = 6;
        step.stepMs = 500.0;
        step.streamSeconds = 1.0;
        step.selfCache = false;
        step.cache.beams = 1;
        shown = DictationController::withStep(shown, step);
        step.encoderMs = 50.0;
        step.decodeMs = 20.0;
        step.tokens = 4;
        step.streamSeconds = 2.0;
        shown = DictationController::withStep(shown, step);
        StreamingStep waited;  // a step that found too little new audio decodes nothing
        waited.stepMs = 100.0;
        waited.streamSeconds = 2.2;
        shown = DictationController::withStep(shown, waited);
        QCOMPARE(shown.windows, 2);
        QCOMPARE(shown.decodeMs, 50.0);
        QCOMPARE(shown.decodeCalls, 10);
        QCOMPARE(shown.lastEncoderMs, 50.0);
        QCOMPARE(shown.audioSeconds, 2.2);
        QCOMPARE(shown.wallSeconds, 1.1);
        QVERIFY(!waited.cache.device.known);
        QVERIFY(shown.cache.device.known);  // the device's memory as last read, not lost to a step without it
        QCOMPARE(shown.cache.device.totalBytes, size_t(1000));
    }

    void restoreMovesTheTextIntoTheOwnJournal() {
        const auto left = leaveJournal(" Nothing dictated is lost.");
        DictationController c;
        QVERIFY(c.journalPath().isEmpty());  // made at the first run or restore
        auto found = c.scanLeftovers();
        QVERIFY2(found.ok(), found.ok() ? "" : found.message().c_str());
        QCOMPARE(int(found.value().size()), 1);
        QCOMPARE(int(c.leftovers().size()), 1);
        QCOMPARE(QString::fromStdString(c.leftovers().front().text()), QString("Nothing dictated is lost."));
        auto adopted = c.adoptLeftovers();
        QVERIFY2(adopted.ok(), adopted.ok() ? "" : adopted.message().c_str());
        QVERIFY(c.leftovers().empty());
        QVERIFY(!std::filesystem::exists(left));
        const QString own = c.journalPath();
        QVERIFY(!own.isEmpty());
        auto entries = DictationJournal::read(own.toStdString());
        QVERIFY(entries.ok());
        QCOMPARE(int(entries.value().size()), 1);
        QCOMPARE(QString::fromStdString(entries.value().front().text), QString(" Nothing dictated is lost."));
        // Held by this controller: not offered to another window while it is open.
        DictationController other;
        QVERIFY(other.scanLeftovers().ok());
        QVERIFY(other.leftovers().empty());
        c.closeNormally();
        QVERIFY(!std::filesystem::exists(own.toStdString()));
    }

    void discardRemovesTheText() {
        const auto left = leaveJournal(" Thrown away on purpose.");
        DictationController c;
        QVERIFY(c.scanLeftovers().ok());
        QCOMPARE(int(c.leftovers().size()), 1);
        QVERIFY(c.discardLeftovers().ok());
        QVERIFY(!std::filesystem::exists(left));
        QVERIFY(c.leftovers().empty());
        QVERIFY(c.journalPath().isEmpty());  // discarding makes no journal
        QVERIFY(c.adoptLeftovers().ok());    // nothing left to adopt
        QVERIFY(c.journalPath().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestDictationController)
#include "tst_dictation_controller.moc"
