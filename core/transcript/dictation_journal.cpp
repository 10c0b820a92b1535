// The dictation journal's file (see dictation_journal.h).
#include "core/transcript/dictation_journal.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace hearsay {
namespace {

constexpr const char* kHeader = "hearsay-journal 1";

std::string escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\t') out += "\\t";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else out += c;
    }
    return out;
}

std::string unescape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\' || i + 1 == text.size()) {
            out += text[i];
            continue;
        }
        const char c = text[++i];
        out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    }
    return out;
}

std::vector<std::string> splitTabs(const std::string& line, size_t maxFields) {
    std::vector<std::string> fields;
    size_t at = 0;
    while (fields.size() + 1 < maxFields) {
        const size_t tab = line.find('\t', at);
        if (tab == std::string::npos) break;
        fields.push_back(line.substr(at, tab - at));
        at = tab + 1;
    }
    fields.push_back(line.substr(at));
    return fields;
}

std::string number(double value) {
    std::ostringstream out;
    out.precision(3);
    out << std::fixed << value;
    return out.str();
}

} // namespace

std::filesystem::path DictationJournal::defaultDirectory() {
    const char* state = std::getenv("XDG_STATE_HOME");
    if (state && *state) return std::filesystem::path(state) / "hearsay";
    const char* home = std::getenv("HOME");
    return std::filesystem::path(home && *home ? home : ".") / ".local" / "state" / "hearsay";
}

Result<DictationJournal> DictationJournal::open(const std::filesystem::path& file) {
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) return makeError("cannot create the journal's directory " + file.parent_path().string() + ": " + ec.message());
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return makeError("cannot open the dictation journal " + file.string() + ": " + std::strerror(errno));
    DictationJournal journal(fd, file);
    if (::lseek(fd, 0, SEEK_END) == 0) {
        if (auto ok = journal.writeLine(kHeader); !ok) return ok.error();
    }
    return journal;
}

DictationJournal::DictationJournal(DictationJournal&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path)), m_backlog(std::move(other.m_backlog)) {}

DictationJournal& DictationJournal::operator=(DictationJournal&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
        m_backlog = std::move(other.m_backlog);
    }
    return *this;
}

DictationJournal::~DictationJournal() {
    if (m_fd >= 0) ::close(m_fd);
}

Result<void> DictationJournal::writeLine(const std::string& line) {
    const std::string data = line + '\n';
    const off_t before = ::lseek(m_fd, 0, SEEK_END);
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(m_fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            // A part written before the failure would join the next record: cut it off.
            if (done > 0 && before >= 0 && ::ftruncate(m_fd, before) != 0) {
                // Could not cut it: end the torn part so that the next record starts on its own line
                // (the reader skips the torn one as an unknown record).
                [[maybe_unused]] const ssize_t ignored = ::write(m_fd, "\n", 1);
            }
            return makeError("cannot write the dictation journal " + m_path.string() + ": " + std::strerror(error));
        }
        done += size_t(n);
    }
    return {};
}

Result<void> DictationJournal::flush() {
    size_t written = 0;
    Result<void> result;
    for (; written < m_backlog.size(); ++written) {
        result = writeLine(m_backlog[written]);
        if (!result) break;
    }
    m_backlog.erase(m_backlog.begin(), m_backlog.begin() + std::ptrdiff_t(written));
    return result;
}

Result<void> DictationJournal::append(std::string line) {
    m_backlog.push_back(std::move(line));
    return flush();
}

Result<void> DictationJournal::beginRun(const std::string& source) { return append("R\t" + escape(source)); }

Result<void> DictationJournal::commit(const std::string& text, double start, double end, bool endOfUtterance) {
    return append("C\t" + number(start) + "\t" + number(end) + "\t" + (endOfUtterance ? "1" : "0") + "\t" +
                  escape(text));
}

Result<std::vector<JournalEntry>> DictationJournal::read(const std::filesystem::path& file) {
    std::vector<JournalEntry> entries;
    std::ifstream in(file, std::ios::binary);
    if (!in) return entries;  // no journal: nothing to restore
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A record is complete only with its newline: a line torn by a kill mid-write is dropped.
    content.erase(content.find_last_of('\n') == std::string::npos ? 0 : content.find_last_of('\n') + 1);
    if (content.empty()) return entries;
    std::istringstream lines(content);
    std::string line;
    if (!std::getline(lines, line) || line != kHeader)
        return makeError(file.string() + " is not a Hearsay dictation journal (its first line is not \"" + kHeader + "\")");
    int run = -1;
    std::string source;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        if (line[0] == 'R' && line.size() > 1 && line[1] == '\t') {
            ++run;
            source = unescape(line.substr(2));
            continue;
        }
        const std::vector<std::string> f = splitTabs(line, 5);
        if (f.size() != 5 || f[0] != "C") continue;  // unknown record: skipped (newer writer)
        JournalEntry e;
        e.run = std::max(run, 0);
        e.source = source;
        e.start = std::strtod(f[1].c_str(), nullptr);
        e.end = std::strtod(f[2].c_str(), nullptr);
        e.endOfUtterance = f[3] == "1";
        e.text = unescape(f[4]);
        entries.push_back(std::move(e));
    }
    return entries;
}

std::string journalText(const std::vector<JournalEntry>& entries) {
    std::string text;
    for (const JournalEntry& e : entries) text += e.text;
    return text;
}

} // namespace hearsay
