// The dictation journal's file: records survive as written (tabs, newlines and backslashes in the
// text), runs are told apart, a torn last line (a kill mid-write) is dropped, a file that is not a
// journal is an error with a message, a missing one is simply empty, and the XDG state directory
// decides where it lives.
#include "core/transcript/dictation_journal.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace hearsay;

class TestJournalFile : public QObject {
    Q_OBJECT

private slots:
    void writesAndReadsRuns() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("sub/dir/dictation.journal").toStdString();
        {
            auto journal = DictationJournal::open(file);
            QVERIFY2(journal.ok(), journal.ok() ? "" : journal.error().message.c_str());
            QVERIFY(journal->beginRun("ALSA: pulse"));
            QVERIFY(journal->commit(" And so,", 0.0, 1.25, false));
            QVERIFY(journal->commit(" my\tfellow\\ Americans\nask", 1.25, 3.5, true));
        }
        {
            auto journal = DictationJournal::open(file);  // appends
            QVERIFY(journal.ok());
            QVERIFY(journal->beginRun("jfk.wav"));
            QVERIFY(journal->commit(" not", 4.0, 4.5, false));
        }
        auto entries = DictationJournal::read(file);
        QVERIFY(entries.ok());
        QCOMPARE(entries->size(), size_t(3));
        QCOMPARE(entries.value()[1].text, std::string(" my\tfellow\\ Americans\nask"));
        QCOMPARE(entries.value()[1].end, 3.5);
        QVERIFY(entries.value()[1].endOfUtterance);
        QCOMPARE(entries.value()[0].run, 0);
        QCOMPARE(entries.value()[2].run, 1);
        QCOMPARE(entries.value()[2].source, std::string("jfk.wav"));
        QCOMPARE(journalText(entries.value()), std::string(" And so, my\tfellow\\ Americans\nask not"));
    }

    void dropsATornLastLine() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("dictation.journal").toStdString();
        {
            auto journal = DictationJournal::open(file);
            QVERIFY(journal.ok());
            QVERIFY(journal->beginRun("mic"));
            QVERIFY(journal->commit(" whole", 0.0, 1.0, false));
        }
        std::ofstream(file, std::ios::app) << "C\t1.000\t2.0";  // killed mid-record
        auto entries = DictationJournal::read(file);
        QVERIFY(entries.ok());
        QCOMPARE(entries->size(), size_t(1));
        QCOMPARE(entries.value()[0].text, std::string(" whole"));
    }

    void badAndMissingFiles() {
        QTemporaryDir dir;
        auto missing = DictationJournal::read(dir.filePath("none").toStdString());
        QVERIFY(missing.ok());
        QVERIFY(missing->empty());
        const std::filesystem::path other = dir.filePath("other.txt").toStdString();
        std::ofstream(other) << "hello\nworld\n";
        auto bad = DictationJournal::read(other);
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().message.find("not a Hearsay dictation journal") != std::string::npos);
        auto unwritable = DictationJournal::open("/proc/hearsay-no/dictation.journal");
        QVERIFY(!unwritable.ok());
    }

    void liveInTheXdgStateDirectory() {
        const QByteArray saved = qgetenv("XDG_STATE_HOME");
        qputenv("XDG_STATE_HOME", "/tmp/state-here");
        QCOMPARE(DictationJournal::defaultDirectory(), std::filesystem::path("/tmp/state-here/hearsay"));
        qunsetenv("XDG_STATE_HOME");
        QVERIFY(DictationJournal::defaultDirectory().string().ends_with(".local/state/hearsay"));
        if (!saved.isEmpty()) qputenv("XDG_STATE_HOME", saved);
    }
};

QTEST_MAIN(TestJournalFile)
#include "tst_journal_file.moc"
