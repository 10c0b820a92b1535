// The journal directory: every dictating process (the GUI, `hearsay-cli stream`) journals into a
// file of its own that no other run ever overwrites, and what a run that did not end normally left
// behind is found here, read, and removed only when the user restores or discards it.
//
// Files: <directory>/dictation-<UTC yyyyMMdd-HHmmss-mmm>-<pid>[-n].journal (DictationJournal's
// format, plain UTF-8 text). A running process holds an exclusive flock(2) on its file
// (JournalLease); the kernel drops it when the process dies, however it dies, so a file that can
// be locked belongs to no running process and is a leftover. Leftovers are listed oldest first.
// The single file of earlier versions ("dictation.journal", "dictation.journal.previous") is
// listed too.
#pragma once

#include "core/transcript/dictation_journal.h"
#include "core/util/result.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace hearsay {

// A journal file this process is writing: created new (never an existing one) and locked until
// the lease ends. Move-only.
class JournalLease {
public:
    JournalLease() = default;
    JournalLease(JournalLease&& other) noexcept;
    JournalLease& operator=(JournalLease&& other) noexcept;
    JournalLease(const JournalLease&) = delete;
    JournalLease& operator=(const JournalLease&) = delete;
    // Unlocks; the file stays (a run that ends without remove() leaves its text to recover).
    ~JournalLease();

    bool held() const { return m_fd >= 0; }
    const std::filesystem::path& path() const { return m_path; }
    // A normal end, the text having been kept elsewhere (printed, shown and then closed):
    // removes the file and unlocks.
    Result<void> remove();

private:
    friend class JournalStore;
    JournalLease(int fd, std::filesystem::path path) : m_fd(fd), m_path(std::move(path)) {}
    void release();

    int m_fd = -1;
    std::filesystem::path m_path;
};

// A journal left by a run that did not end normally.
struct LeftoverJournal {
    std::filesystem::path path;
    std::chrono::system_clock::time_point started;   // when its run began (its name; else its last write)
    std::chrono::system_clock::time_point modified;  // its last write
    std::vector<JournalEntry> entries;               // its committed text, in order
    std::string error;                               // not empty: the file could not be read (left alone)

    // The text as committed, leading space removed.
    std::string text() const;
    int words() const;
};

class JournalStore {
public:
    // DictationJournal::defaultDirectory() unless another is given.
    JournalStore();
    explicit JournalStore(std::filesystem::path directory);

    const std::filesystem::path& directory() const { return m_directory; }

    // A new journal file, with its header, locked by the returned lease. Never reuses a name.
    Result<JournalLease> create() const;
    // The journals no running process holds and that hold text, oldest first. A file held by a
    // process (this one included) is not listed; a journal with no committed text (a run that
    // ended before its first word) is removed; one that cannot be read is listed with its error.
    // A directory that does not exist holds none.
    Result<std::vector<LeftoverJournal>> leftovers() const;
    // Removes a leftover journal the user restored or discarded. Refuses a file outside the
    // directory, one that is not a journal's name, and one a running process holds.
    Result<void> remove(const std::filesystem::path& file) const;
    // The same for each of `journals`; the errors, if any, joined in one.
    Result<void> remove(const std::vector<LeftoverJournal>& journals) const;
    // Restoring: appends the runs of `journals` (oldest first) to `into`, a journal this process
    // holds (its lease's), then removes their files. The restored text so stays on disk until the
    // process's own journal goes, as if dictated again. Nothing is removed when a write fails.
    Result<void> moveInto(const std::filesystem::path& into, const std::vector<LeftoverJournal>& journals) const;

    // Whether `name` is a journal file's name (this version's or an earlier one's).
    static bool isJournalName(const std::string& name);

private:
    std::filesystem::path m_directory;
};

// The number of words in `text` (runs of characters other than white space).
int countWords(const std::string& text);

} // namespace hearsay
