// The dictation journal: committed text written to disk as it is committed, so that a crash or a
// kill loses nothing said. Append-only, one line per record, each written with a single write(2)
// (no user-space buffer: a killed process leaves everything committed in the file); the reader
// ignores a torn last line. Where the files live, whose they are, and what becomes of a journal
// whose run did not end normally: journal_store.h.
//
// A write that fails (disk full, quota, an I/O error) leaves no torn record behind: the file is cut
// back to where the record began. The record is kept in memory, in order with those after it, and
// every later write tries the backlog first, so the journal catches up once there is room.
//
// Format (UTF-8 text, fields separated by tabs, text escaped: \\ \t \n):
//   hearsay-journal 1
//   R <source>                           a dictation run began
//   C <start> <end> <eou 0|1> <text>     committed text (seconds of the run's audio)
#pragma once

#include "core/util/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace hearsay {

struct JournalEntry {
    int run = 0;                 // which run of the journal (0-based, in file order)
    std::string source;          // the run's source ("ALSA: pulse …", "jfk.wav at 1x")
    std::string text;            // as committed (a leading space where a new word starts)
    double start = 0.0;
    double end = 0.0;
    bool endOfUtterance = false;
};

class DictationJournal {
public:
    // $XDG_STATE_HOME/hearsay (default ~/.local/state/hearsay): where the application keeps them.
    static std::filesystem::path defaultDirectory();

    // Opens `file` for appending (creating it and its directory); a new file gets the header.
    static Result<DictationJournal> open(const std::filesystem::path& file);
    // What `file` holds; a missing file is an empty list, a file that is not a journal an error.
    static Result<std::vector<JournalEntry>> read(const std::filesystem::path& file);

    DictationJournal(DictationJournal&& other) noexcept;
    DictationJournal& operator=(DictationJournal&& other) noexcept;
    DictationJournal(const DictationJournal&) = delete;
    DictationJournal& operator=(const DictationJournal&) = delete;
    ~DictationJournal();

    // Each is written before the call returns (one write(2); the kernel has it even if the process
    // dies), after any backlog. An error means the record waits in the backlog (see above).
    Result<void> beginRun(const std::string& source);
    Result<void> commit(const std::string& text, double start, double end, bool endOfUtterance);
    // Tries to write the backlog now; ok when nothing is left waiting.
    Result<void> flush();
    // Records not yet on disk.
    size_t backlog() const { return m_backlog.size(); }
    const std::filesystem::path& path() const { return m_path; }

private:
    DictationJournal(int fd, std::filesystem::path path) : m_fd(fd), m_path(std::move(path)) {}
    Result<void> append(std::string line);
    Result<void> writeLine(const std::string& line);

    int m_fd = -1;
    std::filesystem::path m_path;
    std::vector<std::string> m_backlog;  // lines not yet written, oldest first
};

// The text of the entries, joined as committed (leading spaces kept).
std::string journalText(const std::vector<JournalEntry>& entries);

} // namespace hearsay
