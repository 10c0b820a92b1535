// DecoderProcess: posix_spawn of the helper, a poll() loop with a stall limit on its pipe, and
// the exit status turned into a message.
#include "core/audio/decoder_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

extern char** environ;

namespace hearsay {
namespace {

using Clock = std::chrono::steady_clock;
namespace protocol = decoder_protocol;

const char* qualityName(Resampler::Quality quality) {
    switch (quality) {
    case Resampler::Quality::Best: return "best";
    case Resampler::Quality::Medium: return "medium";
    case Resampler::Quality::Fastest: return "fastest";
    }
    return "best";
}

std::string secondsText(double seconds) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", seconds);
    return text;
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);  // not retried on EINTR: on Linux the descriptor is gone either way
    fd = -1;
}

} // namespace

DecoderProcess::DecoderProcess(std::filesystem::path path, DecoderProcessOptions options)
    : m_path(std::move(path)), m_options(std::move(options)) {}

DecoderProcess::DecoderProcess(DecoderProcess&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_options(std::move(other.m_options)),
      m_info(std::move(other.m_info)),
      m_pid(std::exchange(other.m_pid, 0)),
      m_fd(std::exchange(other.m_fd, -1)),
      m_parser(std::move(other.m_parser)),
      m_record(std::move(other.m_record)),
      m_sourceFrames(other.m_sourceFrames),
      m_samples(other.m_samples),
      m_ended(other.m_ended) {}

DecoderProcess& DecoderProcess::operator=(DecoderProcess&& other) noexcept {
    if (this != &other) {
        stop();
        m_path = std::move(other.m_path);
        m_options = std::move(other.m_options);
        m_info = std::move(other.m_info);
        m_pid = std::exchange(other.m_pid, 0);
        m_fd = std::exchange(other.m_fd, -1);
        m_parser = std::move(other.m_parser);
        m_record = std::move(other.m_record);
        m_sourceFrames = other.m_sourceFrames;
        m_samples = other.m_samples;
        m_ended = other.m_ended;
    }
    return *this;
}

DecoderProcess::~DecoderProcess() { stop(); }

Result<DecoderProcess> DecoderProcess::open(const std::filesystem::path& path, const DecoderProcessOptions& options) {
    DecoderProcess process(path, options);
    if (auto started = process.start(); !started) return started.error();
    return process;
}

Error DecoderProcess::failure(const std::string& reason) {
    stop();
    m_ended = true;
    return makeError("could not decode '" + m_path.string() + "': " + reason);
}

void DecoderProcess::stop() {
    if (m_pid > 0) ::kill(m_pid, SIGKILL);
    closeFd(m_fd);
    if (m_pid > 0) reap(0.0, nullptr);
}

int DecoderProcess::reap(double graceSeconds, bool* killedHere) {
    int status = 0;
    const auto deadline = Clock::now() + std::chrono::duration<double>(graceSeconds);
    bool killed = false;
    while (m_pid > 0) {
        const pid_t got = ::waitpid(m_pid, &status, killed || graceSeconds <= 0.0 ? 0 : WNOHANG);
        if (got == m_pid) break;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {  // ECHILD: someone else reaped it (a SIGCHLD set to SIG_IGN); nothing to wait for
            status = 0;
            break;
        }
        if (Clock::now() >= deadline) {
            ::kill(m_pid, SIGKILL);
            killed = true;
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    m_pid = 0;
    if (killedHere) *killedHere = killed;
    return status;
}

Result<void> DecoderProcess::start() {
    stop();
    m_parser = protocol::RecordParser{};
    m_info = AudioFileInfo{};
    m_sourceFrames = 0;
    m_samples = 0;
    m_ended = false;

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return failure(std::string("cannot make a pipe for the decoder: ") + strerror(errno));
    int readFd = fds[0], writeFd = fds[1];
    if (writeFd == protocol::kStreamFd) {  // dup2 onto itself would keep O_CLOEXEC on older C libraries
        writeFd = ::fcntl(fds[1], F_DUPFD_CLOEXEC, protocol::kStreamFd + 1);
        ::close(fds[1]);
    }
    // Fewer, larger wake-ups; the default (64 KiB) also works, so a refusal is not an error.
    (void)::fcntl(readFd, F_SETPIPE_SZ, 1 << 20);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);  // stray library output goes to stderr
    posix_spawn_file_actions_adddup2(&actions, writeFd, protocol::kStreamFd);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    // Whatever else this process has open without O_CLOEXEC (a library's descriptors) stays here.
    posix_spawn_file_actions_addclosefrom_np(&actions, protocol::kStreamFd + 1);
#endif
    sigset_t mask;
    sigemptyset(&mask);
    posix_spawnattr_setsigmask(&attributes, &mask);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
        sigaddset(&defaults, sig);
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

    const std::string helper = m_options.helper.string();
    const std::string memory = std::to_string(m_options.memoryLimitBytes >> 20);
    const std::string file = m_path.string();
    std::vector<char*> argv{const_cast<char*>(helper.c_str())};
    for (const char* arg : {"--quality", qualityName(m_options.quality), "--memory-limit-mib", memory.c_str(), "--"}) {
        argv.push_back(const_cast<char*>(arg));
    }
    argv.push_back(const_cast<char*>(file.c_str()));
    argv.push_back(nullptr);

    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, helper.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(writeFd);  // the helper holds the only write end: its exit means end of stream
    if (spawned != 0) {
        ::close(readFd);
        return failure("cannot start the decoder '" + helper + "': " + strerror(spawned));
    }
    m_pid = pid;
    m_fd = readFd;
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);

    auto first = readRecord();
    if (!first) return first.error();
    if (m_record.type == protocol::RecordType::Error) return helperReported();
    m_info.decoder = m_record.info.decoder;
    m_info.format = m_record.info.format;
    m_info.sourceRate = m_record.info.sourceRate;
    m_info.sourceChannels = m_record.info.sourceChannels;
    return {};
}

Result<bool> DecoderProcess::readRecord() {
    const auto stall = std::chrono::duration<double>(m_options.stallSeconds);
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(stall);
    uint8_t buffer[64 * 1024];
    while (true) {
        auto taken = m_parser.take(m_record);
        if (!taken) return failure("the decoder's output is not valid (" + taken.message() + ")");
        if (taken.value()) return true;
        if (m_fd < 0) return failure("the decoder is not running");

        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            return failure("the decoder stopped responding (no data for " + secondsText(m_options.stallSeconds) + " s)");
        }
        pollfd p{m_fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, int(std::min<long long>(left, 1000LL * 3600)));
        if (ready < 0 && errno != EINTR) return failure(std::string("cannot wait for the decoder: ") + strerror(errno));
        if (ready <= 0) continue;  // EINTR or the timeout: the deadline decides
        const ssize_t n = ::read(m_fd, buffer, sizeof(buffer));
        if (n > 0) {
            m_parser.feed(buffer, size_t(n));
            deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(stall);
        } else if (n == 0) {
            return helperEnded();  // end of stream before a Done or Error record
        } else if (errno != EINTR && errno != EAGAIN) {
            return failure(std::string("cannot read from the decoder: ") + strerror(errno));
        }
    }
}

Error DecoderProcess::helperReported() {
    const std::string message = m_record.message;  // the decoder's own words, as in process
    stop();
    m_ended = true;
    return makeError(message);
}

Error DecoderProcess::helperEnded() {
    closeFd(m_fd);
    bool killed = false;
    const int status = reap(m_options.stallSeconds, &killed);
    return exitFailure(status, killed);
}

Error DecoderProcess::exitFailure(int status, bool killedHere) {
    if (killedHere) {
        return failure("the decoder stopped responding (it did not exit within " + secondsText(m_options.stallSeconds) +
                       " s of its last output)");
    }
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* abbreviation = sigabbrev_np(sig);
        const std::string name = "signal " + std::to_string(sig) + (abbreviation ? std::string(", SIG") + abbreviation : "");
        // Not from us (we reap what we kill): most likely the kernel's OOM killer.
        if (sig == SIGKILL) return failure("the decoder was killed (" + name + "; the system may be out of memory)");
        return failure("the decoder crashed (" + name + ")");
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == protocol::kExitOutOfMemory) return failure("the decoder ran out of memory");
    if (code == 0) return failure("the decoder's output is not valid (it ended early)");
    return failure("the decoder stopped without finishing (exit status " + std::to_string(code) + ")");
}

Result<bool> DecoderProcess::next(std::vector<float>& block) {
    block.clear();
    if (m_ended) return false;
    auto got = readRecord();
    if (!got) return got.error();
    switch (m_record.type) {
    case protocol::RecordType::Block:
        m_sourceFrames = m_record.sourceFrames;
        m_samples += m_record.samples.size();
        block.swap(m_record.samples);  // the caller's old buffer comes back for the next block
        return true;
    case protocol::RecordType::Done: {
        if (m_record.sampleCount != m_samples) {
            return failure("the decoder's output is not valid (it counted " + std::to_string(m_record.sampleCount) +
                           " samples, " + std::to_string(m_samples) + " arrived)");
        }
        m_sourceFrames = m_record.sourceFrames;
        // The helper exits right after its last record; anything else is a fault after all.
        uint8_t extra = 0;
        while (m_fd >= 0) {
            pollfd p{m_fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, int(m_options.stallSeconds * 1000));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) break;
            const ssize_t n = ::read(m_fd, &extra, 1);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n != 0) return failure("the decoder's output is not valid (data after the end of the stream)");
            closeFd(m_fd);
        }
        closeFd(m_fd);
        bool killed = false;
        const int status = reap(m_options.stallSeconds, &killed);
        if (killed || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return exitFailure(status, killed);
        m_ended = true;
        return false;
    }
    case protocol::RecordType::Error: return helperReported();
    case protocol::RecordType::Info: break;  // the parser allows only one, taken by start()
    }
    return failure("the decoder's output is not valid (an unexpected record)");
}

Result<void> DecoderProcess::rewind() { return start(); }

} // namespace hearsay
