// hearsay-cli journal show|restore|discard on what earlier runs left in the journal directory, and
// `hearsay-cli stream` journaling: killed with SIGKILL mid-stream (the real tiny.en model, a
// recording played at real-time pace) it leaves every printed word on disk for `journal restore`;
// a normal end leaves nothing; --no-journal writes nothing.
#include "core/cli_run.h"
#include "core/real_models.h"
#include "core/transcript/journal_store.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fstream>
#include <sys/prctl.h>
#include <thread>

using namespace hearsay;

namespace {

using Run = test::CliRun;

// hearsay-cli with `state` as its XDG state folder (where it finds the dictation journals).
Run cli(const QString& state, const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_STATE_HOME", state);
    return test::runCli(args, env);
}

// A journal as a run that was killed leaves it.
std::filesystem::path leaveJournal(const JournalStore& store, const std::vector<std::string>& pieces) {
    auto lease = store.create();
    if (!lease) return {};
    auto journal = DictationJournal::open(lease->path());
    if (!journal || !journal->beginRun("mic")) return {};
    for (const std::string& p : pieces)
        if (!journal->commit(p, 0.0, 1.0, false)) return {};
    return lease->path();
}

QStringList words(const QString& text) {
    QString t = text.toLower();
    t.remove(QRegularExpression("[^a-z0-9' ]"));
    return t.split(' ', Qt::SkipEmptyParts);
}

int journalFiles(const QString& dir) {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir.toStdString(), ec))
        if (JournalStore::isJournalName(e.path().filename().string())) ++n;
    return n;
}

} // namespace

class TestCliJournal : public QObject {
    Q_OBJECT

private slots:
    void showRestoreDiscard() {
        QTemporaryDir dir;
        const QString state = dir.filePath("state");
        const JournalStore store(dir.filePath("state/hearsay").toStdString());

        Run none = cli(state, {"journal", "show"});
        QCOMPARE(none.exitCode, 0);
        QVERIFY2(none.out.contains("no dictated text"), qPrintable(none.out));

        const auto first = leaveJournal(store, {" And so,", " my fellow Americans,"});
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // later, by its name and its last write
        const auto second = leaveJournal(store, {" ask not"});
        QVERIFY(!first.empty() && !second.empty());
        std::ofstream(store.directory() / "dictation.journal") << "not a journal\n";  // left alone

        Run show = cli(state, {"journal", "show"});
        QCOMPARE(show.exitCode, 0);
        const int a = show.out.indexOf("5 words"), b = show.out.indexOf("2 words");
        QVERIFY2(a >= 0 && b > a, qPrintable(show.out));  // oldest first
        QVERIFY2(show.out.contains("And so, my fellow Americans,") && show.out.contains("ask not"), qPrintable(show.out));
        QVERIFY2(show.out.contains(QString::fromStdString(first.string())), qPrintable(show.out));
        QVERIFY2(show.out.contains("unreadable"), qPrintable(show.out));
        QVERIFY(std::filesystem::exists(first) && std::filesystem::exists(second));  // show removes nothing

        // Wrong requests remove nothing.
        QCOMPARE(cli(state, {"journal"}).exitCode, 2);
        QCOMPARE(cli(state, {"journal", "frob"}).exitCode, 2);
        QCOMPARE(cli(state, {"journal", "restore", "9"}).exitCode, 2);
        QCOMPARE(cli(state, {"journal", "discard", "x"}).exitCode, 2);
        QCOMPARE(cli(state, {"journal", "show", "--output", dir.filePath("o")}).exitCode, 2);
        // An output that cannot be written: the text is not out, the journals stay.
        Run unwritable = cli(state, {"journal", "restore", "--output", dir.path()});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY(std::filesystem::exists(first) && std::filesystem::exists(second));

        // The second only (show numbers them 1, 2, 3: the unreadable one sorts by its time).
        const auto line = QRegularExpression("^(\\d+)\\t[^\\n]*\\t2 words\\t", QRegularExpression::MultilineOption)
                              .match(show.out);
        const int secondNumber = line.hasMatch() ? line.captured(1).toInt() : 0;
        QVERIFY2(secondNumber >= 2, qPrintable(show.out));
        const QString out = dir.filePath("restored.txt");
        Run one = cli(state, {"journal", "restore", QString::number(secondNumber), "--output", out});
        QCOMPARE(one.exitCode, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), QString("ask not\n"));
        QVERIFY(!std::filesystem::exists(second));
        QVERIFY(std::filesystem::exists(first));

        // All that is left, to stdout; the unreadable file stays.
        Run all = cli(state, {"journal", "restore"});
        QCOMPARE(all.exitCode, 0);
        QCOMPARE(all.out, QString("And so, my fellow Americans,\n"));
        QVERIFY(!std::filesystem::exists(first));
        QVERIFY(std::filesystem::exists(store.directory() / "dictation.journal"));

        // Discard: gone without a word printed.
        const auto third = leaveJournal(store, {" unwanted"});
        Run discard = cli(state, {"journal", "discard"});
        QCOMPARE(discard.exitCode, 0);
        QVERIFY(discard.out.isEmpty());
        QVERIFY(!std::filesystem::exists(third));
        QCOMPARE(journalFiles(dir.filePath("state/hearsay")), 1);  // the unreadable one
    }

    void streamKilledLeavesItsText() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QTemporaryDir dir;
        const QString state = dir.filePath("state"), journals = dir.filePath("state/hearsay");
        const QString model = QString::fromStdString((real_models::directory() / "tiny.en").string());
        const QString speech = QString(HEARSAY_SHARED_DATA_DIR) + "/speech-30s-a.wav";

        // Killed after a few committed lines, with and without the journal.
        auto killedStream = [&](const QStringList& extra, QString* printed) -> bool {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("XDG_STATE_HOME", state);
            p.setProcessEnvironment(env);
            p.setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGKILL); });
            p.start(QStringLiteral(HEARSAY_CLI_PATH), QStringList{"stream", "--model", model, "--backend", "cpu",
                                                                  "--realtime", "--no-tentative", "--quiet", speech} +
                                                          extra);
            if (!p.waitForStarted(30000)) return false;
            QString out;
            QElapsedTimer timer;
            timer.start();
            while (out.count('\n') < 3) {  // three committed lines
                if (p.state() != QProcess::Running || timer.elapsed() > 300000) return false;
                p.waitForReadyRead(200);
                out += QString::fromUtf8(p.readAllStandardOutput());
            }
            ::kill(pid_t(p.processId()), SIGKILL);
            p.waitForFinished(10000);
            out += QString::fromUtf8(p.readAllStandardOutput());
            *printed = out.remove(QRegularExpression("\\[[^\\]]*\\]"));  // the text, timestamps removed
            return p.exitStatus() == QProcess::CrashExit;
        };

        QString printed;
        QVERIFY(killedStream({"--no-journal"}, &printed));
        QVERIFY2(words(printed).size() >= 3, qPrintable(printed));
        QCOMPARE(journalFiles(journals), 0);

        QVERIFY(killedStream({}, &printed));
        const QStringList said = words(printed);
        QVERIFY2(said.size() >= 3, qPrintable(printed));
        QCOMPARE(journalFiles(journals), 1);
        Run show = cli(state, {"journal", "show"});
        QCOMPARE(show.exitCode, 0);
        QVERIFY2(show.out.startsWith("1\t") && show.out.contains(" words\t"), qPrintable(show.out));
        Run restore = cli(state, {"journal", "restore"});
        QCOMPARE(restore.exitCode, 0);
        const QStringList back = words(restore.out);
        QVERIFY2(back.size() >= said.size(), qPrintable(printed + " | " + restore.out));
        for (int i = 0; i < said.size(); ++i)
            QVERIFY2(back[i] == said[i], qPrintable(QString("word %1: %2 | %3").arg(i).arg(printed, restore.out)));
        QCOMPARE(journalFiles(journals), 0);

        // A normal end: the text was printed, the journal goes.
        Run clean = cli(state, {"stream", "--model", model, "--backend", "cpu", "--quiet",
                                QString(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav"});
        QCOMPARE(clean.exitCode, 0);
        QVERIFY2(words(clean.out).join(' ').contains("fellow americans"), qPrintable(clean.out));
        QCOMPARE(journalFiles(journals), 0);
        QVERIFY(cli(state, {"journal", "show"}).out.contains("no dictated text"));
    }
};

QTEST_APPLESS_MAIN(TestCliJournal)
#include "tst_cli_journal.moc"
