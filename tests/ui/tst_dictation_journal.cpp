// Crash safety: the real application dictates (the real tiny.en model, a recording played at
// real-time pace as its microphone) and is killed with SIGKILL in the middle; the next start
// offers the journal, and restoring it brings back every word that had been shown as committed.
#include "core/real_models.h"
#include "ui_test_support.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>

using namespace hearsay;
using namespace hearsay::test;


class TestDictationJournal : public QObject {
    Q_OBJECT

private slots:
    void restoresEveryCommittedWordAfterSigkill() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString state = dir.filePath("state"), ini = dir.filePath("settings.ini");
        {
            QSettings settings(ini, QSettings::IniFormat);
            settings.setValue("engine/backend", "cpu");
            settings.setValue("decoding/beamSize", 1);
        }
        const QString model = QString::fromStdString((real_models::directory() / "tiny.en").string());

        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_STATE_HOME", state);
        env.insert("QT_QPA_PLATFORM", "offscreen");
        app.setProcessEnvironment(env);
        app.setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGKILL); });
        app.start(HEARSAY_GUI_PATH, {"--settings", ini, "--model", model, "--dictate-file", speech30(), "--speed", "1",
                                     "--print-committed"});
        QVERIFY2(app.waitForStarted(30000), qPrintable(app.errorString()));

        // Kill it once it has shown a dozen committed words, mid-sentence and mid-recording.
        QString shown;
        QElapsedTimer timer;
        timer.start();
        while (words(shown).size() < 12) {
            QVERIFY2(app.state() == QProcess::Running,
                     qPrintable("the application ended early: " + QString::fromUtf8(app.readAllStandardError())));
            QVERIFY2(timer.elapsed() < kJobTimeoutMs, "no committed text in time");
            app.waitForReadyRead(200);
            shown += QString::fromUtf8(app.readAllStandardOutput());
        }
        ::kill(pid_t(app.processId()), SIGKILL);
        QVERIFY(app.waitForFinished(10000));
        QCOMPARE(app.exitStatus(), QProcess::CrashExit);
        shown += QString::fromUtf8(app.readAllStandardOutput());  // lines written before the kill

        // The next start finds the journal and offers it; restoring appends the text.
        qputenv("XDG_STATE_HOME", state.toUtf8());
        auto settings = std::make_unique<QSettings>(ini, QSettings::IniFormat);
        ui::MainWindow window(std::move(settings));
        QVERIFY(window.hasJournalToRestore());
        QVERIFY(window.messageBar()->isVisibleTo(&window));
        QVERIFY(window.restoreJournal());
        QVERIFY(!window.hasJournalToRestore());
        QString restored;
        for (int r = 0; r < window.transcriptModel()->segmentCount(); ++r)
            restored += QString::fromStdString(window.transcriptModel()->segment(r).text);

        // Every word shown as committed before the kill is there, in order.
        const QStringList said = words(shown), back = words(restored);
        QVERIFY2(said.size() >= 12, qPrintable(shown));
        QVERIFY2(back.size() >= said.size(), qPrintable(shown + " | " + restored));
        for (int i = 0; i < said.size(); ++i)
            QVERIFY2(back[i] == said[i], qPrintable(QString("word %1: %2 | %3").arg(i).arg(shown, restored)));
        // A normal close removes the journal: nothing is offered at the start after it.
        window.close();
        ui::MainWindow again(std::make_unique<QSettings>(ini, QSettings::IniFormat));
        QVERIFY(!again.hasJournalToRestore());
    }
};

QTEST_MAIN(TestDictationJournal)
#include "tst_dictation_journal.moc"
