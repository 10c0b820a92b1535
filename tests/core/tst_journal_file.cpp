// The dictation journal's file: records survive as written (tabs, newlines and backslashes in the
// text), runs are told apart, a torn last line (a kill mid-write) is dropped, a file that is not a
// journal is an error with a message, a missing one is simply empty, a full disk leaves no torn
// record and the journal catches up once there is room, and the XDG state directory decides where
// it lives.
#include "core/transcript/dictation_journal.h"
#include "file_size_limit.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <iterator>

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

    // The disk fills mid-dictation (file_size_limit.h: no byte past the 300th).
    // The record that does not fit is cut off, not left torn; the records after it wait in memory;
    // once there is room the next commit writes them all, in order.
    void diskFullLeavesNoTornRecordAndCatchesUp() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("dictation.journal").toStdString();
        auto journal = DictationJournal::open(file);
        QVERIFY(journal.ok());
        QVERIFY(journal->beginRun("mic"));

        test::FileSizeLimit full(300);
        QVERIFY(full.ok());
        std::vector<std::string> said;
        int firstFailure = -1;
        std::string message;
        for (int i = 0; i < 12; ++i) {
            said.push_back(" word " + std::to_string(i) + ", and some more said after it");
            auto ok = journal->commit(said.back(), i, i + 1, i % 3 == 2);
            if (!ok && firstFailure < 0) {
                firstFailure = i;
                message = ok.message();
            }
        }
        const auto sizeWhileFull = std::filesystem::file_size(file);
        std::ifstream in(file, std::ios::binary);
        const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        full.lift();  // room again

        QVERIFY2(firstFailure > 0, "the limit should have stopped a write after the first few");
        QVERIFY2(message.find(file.string()) != std::string::npos && message.find("too large") != std::string::npos,
                 message.c_str());
        QVERIFY(sizeWhileFull <= 300);
        QVERIFY2(!raw.empty() && raw.back() == '\n', "a torn record was left in the file");
        QCOMPARE(journal->backlog(), size_t(12 - firstFailure));
        auto whileFull = DictationJournal::read(file);
        QVERIFY(whileFull.ok());
        QCOMPARE(whileFull->size(), size_t(firstFailure));

        QVERIFY(journal->commit(" the end.", 12, 13, true));
        QCOMPARE(journal->backlog(), size_t(0));
        said.push_back(" the end.");
        auto after = DictationJournal::read(file);
        QVERIFY(after.ok());
        QCOMPARE(after->size(), said.size());
        for (size_t i = 0; i < said.size(); ++i) {
            QCOMPARE(after.value()[i].text, said[i]);
            QCOMPARE(after.value()[i].start, double(i));
            QCOMPARE(after.value()[i].run, 0);
        }
        QVERIFY(after.value()[2].endOfUtterance);
        QVERIFY(!after.value()[3].endOfUtterance);
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
