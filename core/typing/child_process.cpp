// posix_spawn with three pipes, fed and drained with poll() until the program exits (see
// child_process.h).
#include "core/typing/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace hearsay {
namespace {

void closeFd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Reads what `fd` has now into `into`; closes it at the end of the stream or on an error.
void drain(int& fd, std::string& into) {
    char buffer[16384];
    while (fd >= 0) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) {
            into.append(buffer, size_t(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n == 0 || errno != EAGAIN) closeFd(fd);
            return;
        }
    }
}

// Writing to a program that exited early raises SIGPIPE, which would end this process: the
// signal is blocked on this thread while the input goes, and a pending one consumed after.
class SigpipeBlock {
public:
    SigpipeBlock() {
        sigemptyset(&m_pipe);
        sigaddset(&m_pipe, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        m_wasPending = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &m_pipe, &m_old);
    }
    ~SigpipeBlock() {
        if (!m_wasPending) {
            const timespec zero{0, 0};
            while (sigtimedwait(&m_pipe, nullptr, &zero) == SIGPIPE) {}
        }
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
    }
    SigpipeBlock(const SigpipeBlock&) = delete;
    SigpipeBlock& operator=(const SigpipeBlock&) = delete;

private:
    sigset_t m_pipe{}, m_old{};
    bool m_wasPending = false;
};

} // namespace

Result<ChildOutput> runChild(const std::vector<std::string>& argv, std::string_view input, int timeoutMs,
                             std::string_view package) {
    if (argv.empty()) return makeError("no program to run");
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        const std::string why = std::strerror(errno);
        for (int* p : {in, out, err}) closeFd(p[0]), closeFd(p[1]);
        return makeError("cannot run " + argv[0] + ": cannot create a pipe: " + why);
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &none);  // not the caller's blocked signals
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    closeFd(in[0]);
    closeFd(out[1]);
    closeFd(err[1]);
    if (spawned != 0) {
        closeFd(in[1]);
        closeFd(out[0]);
        closeFd(err[0]);
        if (spawned == ENOENT)
            return makeError(argv[0] + " is not installed (Debian package " + std::string(package) + ")");
        return makeError("cannot run " + argv[0] + ": " + std::strerror(spawned));
    }
    for (int fd : {in[1], out[0], err[0]}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

    SigpipeBlock sigpipe;
    ChildOutput result;
    size_t written = 0;
    if (input.empty()) closeFd(in[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        int status = 0;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            closeFd(in[1]);
            closeFd(out[0]);
            closeFd(err[0]);
            return makeError(argv[0] + " did not finish within " + std::to_string((timeoutMs + 999) / 1000) +
                             " s and was stopped");
        }
        pollfd fds[3];
        nfds_t count = 0;
        if (in[1] >= 0) fds[count++] = {in[1], POLLOUT, 0};
        if (out[0] >= 0) fds[count++] = {out[0], POLLIN, 0};
        if (err[0] >= 0) fds[count++] = {err[0], POLLIN, 0};
        // A short poll: the program's exit is seen by waitpid, not by the pipes (see the header).
        if (poll(fds, count, 5) <= 0) continue;
        if (in[1] >= 0) {
            const ssize_t n = write(in[1], input.data() + written, input.size() - written);
            if (n > 0) written += size_t(n);
            if (written == input.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) closeFd(in[1]);
        }
        drain(out[0], result.out);
        drain(err[0], result.errors);
    }
    closeFd(in[1]);
    drain(out[0], result.out);
    drain(err[0], result.errors);
    closeFd(out[0]);
    closeFd(err[0]);
    while (!result.errors.empty() && (result.errors.back() == '\n' || result.errors.back() == '\r'))
        result.errors.pop_back();
    return result;
}

} // namespace hearsay
