// The journal directory (JournalStore): each run gets a file of its own and never an existing one;
// a file held by a running run is not a leftover, one whose run ended without removing it is;
// leftovers come oldest first, those with no words are cleared away, unreadable ones are listed
// and left alone; removing refuses what is not a journal of the directory or is still held.
#include "core/transcript/journal_store.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <iterator>
#include <set>

using namespace hearsay;

namespace {

std::string contents(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A journal as a run leaves it: `pieces` committed, then the run ends without removing it.
std::filesystem::path leaveJournal(const JournalStore& store, const std::vector<std::string>& pieces) {
    auto lease = store.create();
    if (!lease) return {};
    auto journal = DictationJournal::open(lease->path());
    if (!journal || !journal->beginRun("mic")) return {};
    double t = 0.0;
    for (const std::string& p : pieces) {
        if (!journal->commit(p, t, t + 1.0, false)) return {};
        t += 1.0;
    }
    return lease->path();  // the lease ends here: unlocked, the file stays
}

// Writes a journal at `name` in `dir` by hand, as an earlier run (or an earlier version) left it.
void writeJournal(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << "hearsay-journal 1\nR\tmic\nC\t0.000\t1.000\t0\t" << text << "\n";
}

} // namespace

class TestJournalStore : public QObject {
    Q_OBJECT

private slots:
    void newJournalsNeverOverwrite() {
        QTemporaryDir dir;
        const JournalStore store(dir.filePath("state/hearsay").toStdString());
        std::vector<JournalLease> leases;
        std::set<std::filesystem::path> paths;
        for (int i = 0; i < 5; ++i) {  // in the same millisecond, most of them
            auto lease = store.create();
            QVERIFY2(lease.ok(), lease.ok() ? "" : lease.message().c_str());
            QVERIFY(lease->held());
            QCOMPARE(lease->path().parent_path(), store.directory());
            QVERIFY(JournalStore::isJournalName(lease->path().filename().string()));
            QCOMPARE(contents(lease->path()), std::string("hearsay-journal 1\n"));
            paths.insert(lease->path());
            leases.push_back(std::move(lease).value());
        }
        QCOMPARE(paths.size(), size_t(5));

        // A journal an earlier run left keeps its text whatever the runs after it do.
        const std::filesystem::path old = leaveJournal(store, {" ask not"});
        QVERIFY(!old.empty());
        const std::string before = contents(old);
        for (int i = 0; i < 3; ++i) {
            auto lease = store.create();
            QVERIFY(lease.ok());
            QVERIFY(lease->path() != old);
            leases.push_back(std::move(lease).value());
        }
        QCOMPARE(contents(old), before);
    }

    void heldJournalsAreNotLeftovers() {
        QTemporaryDir dir;
        const JournalStore store(dir.path().toStdString());
        auto lease = store.create();
        QVERIFY(lease.ok());
        {
            auto journal = DictationJournal::open(lease->path());
            QVERIFY(journal.ok());
            QVERIFY(journal->beginRun("mic"));
            QVERIFY(journal->commit(" still talking", 0.0, 1.0, false));
        }
        auto found = store.leftovers();
        QVERIFY(found.ok());
        QVERIFY2(found->empty(), "a journal its run still holds was offered");
        QVERIFY(!store.remove(lease->path()));  // nor can it be removed under the run
        QVERIFY(std::filesystem::exists(lease->path()));

        // Its run ends without removing it (as a killed process's lock goes): now a leftover.
        const std::filesystem::path path = lease->path();
        lease = Result<JournalLease>(JournalLease());
        found = store.leftovers();
        QVERIFY(found.ok());
        QCOMPARE(found->size(), size_t(1));
        QCOMPARE(found.value()[0].path, path);
        QCOMPARE(found.value()[0].text(), std::string("still talking"));
        QCOMPARE(found.value()[0].words(), 2);
        QVERIFY(found.value()[0].error.empty());
    }

    void aNormalEndRemovesItsJournal() {
        QTemporaryDir dir;
        const JournalStore store(dir.path().toStdString());
        auto lease = store.create();
        QVERIFY(lease.ok());
        const std::filesystem::path path = lease->path();
        QVERIFY(lease->remove());
        QVERIFY(!lease->held());
        QVERIFY(!std::filesystem::exists(path));
        auto found = store.leftovers();
        QVERIFY(found.ok() && found->empty());
    }

    // Restoring: the leftovers' runs go into this process's journal, then their files go.
    void restoredTextMovesIntoTheOwnJournal() {
        QTemporaryDir dir;
        const JournalStore store(dir.path().toStdString());
        const auto first = leaveJournal(store, {" And so,", " my fellow"});
        const auto second = leaveJournal(store, {" ask not"});
        auto found = store.leftovers();
        QVERIFY(found.ok());
        QCOMPARE(found->size(), size_t(2));
        auto own = store.create();
        QVERIFY(own.ok());
        QVERIFY(store.moveInto(own->path(), found.value()));
        QVERIFY(!std::filesystem::exists(first) && !std::filesystem::exists(second));
        auto moved = DictationJournal::read(own->path());
        QVERIFY(moved.ok());
        QCOMPARE(journalText(moved.value()), std::string(" And so, my fellow ask not"));
        QCOMPARE(moved.value()[2].run, 1);  // each leftover a run of its own
        QVERIFY(store.leftovers()->empty());  // held: not offered again while this process lives

        // The process is killed after restoring: the restored text is offered again.
        own = Result<JournalLease>(JournalLease());
        found = store.leftovers();
        QVERIFY(found.ok());
        QCOMPARE(found->size(), size_t(1));
        QCOMPARE(found.value()[0].text(), std::string("And so, my fellow ask not"));
    }

    void leftoversOldestFirst() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        // Named out of order on purpose; the names' times decide (a day apart, a second apart).
        writeJournal(d, "dictation-20261127-090000-000-200.journal", " third");
        writeJournal(d, "dictation-20261126-230000-500-300.journal", " first");
        writeJournal(d, "dictation-20261127-085959-999-100.journal", " second");
        std::ofstream(d / "notes.txt") << "not a journal\n";
        const JournalStore store(d);
        auto found = store.leftovers();
        QVERIFY2(found.ok(), found.ok() ? "" : found.message().c_str());
        QCOMPARE(found->size(), size_t(3));
        QCOMPARE(found.value()[0].text(), std::string("first"));
        QCOMPARE(found.value()[1].text(), std::string("second"));
        QCOMPARE(found.value()[2].text(), std::string("third"));
        QVERIFY(found.value()[0].started < found.value()[1].started);
        // 2026-11-26 23:00:00.500 UTC
        QCOMPARE(std::chrono::duration_cast<std::chrono::milliseconds>(found.value()[0].started.time_since_epoch())
                     .count(),
                 int64_t(1795734000500));
    }

    void earlierVersionsJournalsAreOffered() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        writeJournal(d, "dictation.journal.previous", " kept aside");
        const JournalStore store(d);
        auto found = store.leftovers();
        QVERIFY(found.ok());
        QCOMPARE(found->size(), size_t(1));
        QCOMPARE(found.value()[0].text(), std::string("kept aside"));
        QVERIFY(store.remove(found.value()[0].path));
        QVERIFY(!std::filesystem::exists(d / "dictation.journal.previous"));
    }

    void emptyJournalsGoUnreadableOnesStay() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        std::ofstream(d / "dictation-20261127-100000-000-1.journal") << "hearsay-journal 1\nR\tmic\n";  // no word
        std::ofstream(d / "dictation-20261127-100001-000-1.journal") << "something else\nC\t0\t1\t0\t x\n";
        std::ofstream(d / "dictation-20261127-100002-000-1.journal");  // being created: not even a header
        const JournalStore store(d);
        auto found = store.leftovers();
        QVERIFY(found.ok());
        QCOMPARE(found->size(), size_t(1));
        QVERIFY2(!found.value()[0].error.empty(), "a file that is not a journal was read as one");
        QVERIFY(found.value()[0].entries.empty());
        QVERIFY(!std::filesystem::exists(d / "dictation-20261127-100000-000-1.journal"));
        QVERIFY(std::filesystem::exists(d / "dictation-20261127-100001-000-1.journal"));
        QVERIFY(std::filesystem::exists(d / "dictation-20261127-100002-000-1.journal"));
    }

    void removeOnlyTheDirectorysJournals() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        std::filesystem::create_directories(d / "journals");
        writeJournal(d, "dictation-20261127-100000-000-1.journal", " elsewhere");
        std::ofstream(d / "journals" / "notes.txt") << "keep\n";
        const JournalStore store(d / "journals");
        QVERIFY(!store.remove(d / "dictation-20261127-100000-000-1.journal"));
        QVERIFY(!store.remove(d / "journals" / "notes.txt"));
        QVERIFY(!store.remove(d / "journals" / ".." / "dictation-20261127-100000-000-1.journal"));
        QVERIFY(std::filesystem::exists(d / "dictation-20261127-100000-000-1.journal"));
        QVERIFY(std::filesystem::exists(d / "journals" / "notes.txt"));
        QVERIFY(!JournalStore::isJournalName("dictation-.journal"));
        QVERIFY(!JournalStore::isJournalName("dictation-1.journal.tmp"));
    }

    void missingDirectoryHoldsNone() {
        QTemporaryDir dir;
        const JournalStore store(dir.filePath("none").toStdString());
        auto found = store.leftovers();
        QVERIFY(found.ok());
        QVERIFY(found->empty());
    }

    void countsWords() {
        QCOMPARE(countWords(""), 0);
        QCOMPARE(countWords("  "), 0);
        QCOMPARE(countWords(" And so, my fellow\tAmericans\n ask"), 6);
    }
};

QTEST_APPLESS_MAIN(TestJournalStore)
#include "tst_journal_store.moc"
