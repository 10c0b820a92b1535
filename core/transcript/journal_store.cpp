// The journal directory: new journals, leftovers and their removal (see journal_store.h).
#include "core/transcript/journal_store.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace hearsay {
namespace {

constexpr const char* kPrefix = "dictation-";
constexpr const char* kSuffix = ".journal";
constexpr const char* kLegacyNames[] = {"dictation.journal", "dictation.journal.previous"};

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// When the run named `name` began: "dictation-20261127-134012-345-…" (UTC); false for other names.
bool startedFromName(const std::string& name, std::chrono::system_clock::time_point& started) {
    std::tm tm{};
    int ms = 0;
    if (std::sscanf(name.c_str(), "dictation-%4d%2d%2d-%2d%2d%2d-%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                    &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const std::time_t t = ::timegm(&tm);
    if (t == std::time_t(-1)) return false;
    started = std::chrono::system_clock::from_time_t(t) + std::chrono::milliseconds(ms);
    return true;
}

std::chrono::system_clock::time_point modifiedTime(const std::filesystem::path& file) {
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(file, ec);
    if (ec) return {};
    return std::chrono::time_point_cast<std::chrono::system_clock::duration>(
        std::chrono::file_clock::to_sys(written));
}

// Whether some process (this one included) holds `file`'s lock; false when it cannot be opened.
bool heldByARun(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);  // closing drops the shared lock taken, if any
    return held;
}

std::string newName(std::chrono::system_clock::time_point now, int attempt) {
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char name[96];
    if (attempt == 0)
        std::snprintf(name, sizeof name, "%s%s-%03d-%d%s", kPrefix, stamp, int(ms), int(::getpid()), kSuffix);
    else
        std::snprintf(name, sizeof name, "%s%s-%03d-%d-%d%s", kPrefix, stamp, int(ms), int(::getpid()), attempt,
                      kSuffix);
    return name;
}

} // namespace

// ---- JournalLease --------------------------------------------------------------------------------

JournalLease::JournalLease(JournalLease&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path)) {}

JournalLease& JournalLease::operator=(JournalLease&& other) noexcept {
    if (this != &other) {
        release();
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

JournalLease::~JournalLease() { release(); }

void JournalLease::release() {
    if (m_fd >= 0) ::close(m_fd);  // the lock goes with the descriptor
    m_fd = -1;
}

Result<void> JournalLease::remove() {
    if (m_fd < 0) return {};
    std::error_code ec;
    std::filesystem::remove(m_path, ec);  // removed while still locked: no one takes it for a leftover
    release();
    if (ec) return makeError("cannot remove the dictation journal " + m_path.string() + ": " + ec.message());
    return {};
}

// ---- LeftoverJournal -----------------------------------------------------------------------------

std::string LeftoverJournal::text() const {
    std::string text = journalText(entries);
    const size_t first = text.find_first_not_of(" \t\n");
    return first == std::string::npos ? std::string() : text.substr(first);
}

int LeftoverJournal::words() const { return countWords(journalText(entries)); }

int countWords(const std::string& text) {
    int words = 0;
    bool inWord = false;
    for (unsigned char c : text) {
        const bool space = std::isspace(c) != 0;
        if (!space && !inWord) ++words;
        inWord = !space;
    }
    return words;
}

// ---- JournalStore --------------------------------------------------------------------------------

JournalStore::JournalStore() : m_directory(DictationJournal::defaultDirectory()) {}

JournalStore::JournalStore(std::filesystem::path directory) : m_directory(std::move(directory)) {}

bool JournalStore::isJournalName(const std::string& name) {
    for (const char* legacy : kLegacyNames)
        if (name == legacy) return true;
    return name.size() > std::strlen(kPrefix) + std::strlen(kSuffix) && name.rfind(kPrefix, 0) == 0 &&
           endsWith(name, kSuffix) && name.find('/') == std::string::npos;
}

Result<JournalLease> JournalStore::create() const {
    std::error_code ec;
    std::filesystem::create_directories(m_directory, ec);
    if (ec) return makeError("cannot create the journal directory " + m_directory.string() + ": " + ec.message());
    const auto now = std::chrono::system_clock::now();
    for (int attempt = 0; attempt < 1000; ++attempt) {
        const std::filesystem::path file = m_directory / newName(now, attempt);
        // O_EXCL: an existing journal is never opened for writing here, let alone truncated.
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST) continue;
            return makeError("cannot create a dictation journal in " + m_directory.string() + ": " +
                             std::strerror(errno));
        }
        // Locked before anything is written: an empty file is never taken for a leftover (see
        // leftovers()), a file with a header is locked until this process ends.
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            ::close(fd);
            std::filesystem::remove(file, ec);
            return makeError("cannot lock the dictation journal " + file.string() + ": " + std::strerror(error));
        }
        JournalLease lease(fd, file);
        if (auto opened = DictationJournal::open(file); !opened) {  // writes the header
            [[maybe_unused]] auto removed = lease.remove();
            return opened.error();
        }
        return lease;
    }
    return makeError("cannot find a free journal name in " + m_directory.string());
}

Result<std::vector<LeftoverJournal>> JournalStore::leftovers() const {
    std::vector<LeftoverJournal> found;
    std::error_code ec;
    if (!std::filesystem::is_directory(m_directory, ec)) return found;
    std::filesystem::directory_iterator it(m_directory, ec);
    if (ec) return makeError("cannot list the journal directory " + m_directory.string() + ": " + ec.message());
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
        if (ec) return makeError("cannot list the journal directory " + m_directory.string() + ": " + ec.message());
        const std::filesystem::path file = it->path();
        if (!isJournalName(file.filename().string()) || !it->is_regular_file(ec)) continue;
        // Empty: being created by a run (it locks before writing the header).
        if (std::filesystem::file_size(file, ec) == 0 || ec || heldByARun(file)) continue;
        LeftoverJournal leftover;
        leftover.path = file;
        leftover.modified = modifiedTime(file);
        if (!startedFromName(file.filename().string(), leftover.started)) leftover.started = leftover.modified;
        auto read = DictationJournal::read(file);
        if (!read) {
            leftover.error = read.message();
        } else if (read->empty()) {
            // Ended before its first word: nothing to offer. Removed (it held no text) unless
            // a run took it meanwhile.
            if (!heldByARun(file)) std::filesystem::remove(file, ec);
            continue;
        } else {
            leftover.entries = std::move(read).value();
        }
        found.push_back(std::move(leftover));
    }
    std::sort(found.begin(), found.end(), [](const LeftoverJournal& a, const LeftoverJournal& b) {
        if (a.started != b.started) return a.started < b.started;
        if (a.modified != b.modified) return a.modified < b.modified;  // two runs in one millisecond
        return a.path.filename() < b.path.filename();
    });
    return found;
}

Result<void> JournalStore::remove(const std::filesystem::path& file) const {
    std::error_code ec;
    const auto parent = std::filesystem::weakly_canonical(file.parent_path().empty() ? "." : file.parent_path(), ec);
    const auto directory = std::filesystem::weakly_canonical(m_directory, ec);
    if (parent != directory || !isJournalName(file.filename().string()))
        return makeError(file.string() + " is not a dictation journal of " + m_directory.string());
    if (heldByARun(file)) return makeError(file.string() + " is being written by a running dictation");
    if (!std::filesystem::remove(file, ec) && ec)
        return makeError("cannot remove the dictation journal " + file.string() + ": " + ec.message());
    return {};
}

Result<void> JournalStore::moveInto(const std::filesystem::path& into,
                                    const std::vector<LeftoverJournal>& journals) const {
    auto journal = DictationJournal::open(into);
    if (!journal) return journal.error();
    for (const LeftoverJournal& j : journals) {
        int run = -1;
        for (const JournalEntry& e : j.entries) {
            if (e.run != run) {
                run = e.run;
                if (auto ok = journal->beginRun(e.source); !ok) return ok.error();
            }
            if (auto ok = journal->commit(e.text, e.start, e.end, e.endOfUtterance); !ok) return ok.error();
        }
    }
    return remove(journals);
}

Result<void> JournalStore::remove(const std::vector<LeftoverJournal>& journals) const {
    std::string errors;
    for (const LeftoverJournal& j : journals)
        if (auto removed = remove(j.path); !removed) errors += (errors.empty() ? "" : "; ") + removed.message();
    if (!errors.empty()) return makeError(errors);
    return {};
}

} // namespace hearsay
