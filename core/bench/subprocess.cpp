// posix_spawn with a pipe on stdout; the parent reads until EOF, then reaps the child. LineChild:
// posix_spawn with one end of a socket pair as stdin and stdout.
#include "core/bench/subprocess.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

extern char** environ;

namespace hearsay {
namespace {

// posix_spawnp of argv with `actions` (destroyed here). The child's end of the channel is closed
// here either way, the parent's too when the child could not be started.
Result<pid_t> spawn(const std::vector<std::string>& argv, posix_spawn_file_actions_t& actions, int childEnd, int parentEnd) {
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(childEnd);
    if (error != 0) {
        close(parentEnd);
        return makeError("cannot start '" + argv[0] + "': " + std::strerror(error));
    }
    return pid;
}

} // namespace

Result<ProcessResult> runProcess(const std::vector<std::string>& argv) {
    if (argv.empty()) return makeError("runProcess: no program given");
    int fds[2];
    if (pipe(fds) != 0) return makeError(std::string("cannot create a pipe: ") + std::strerror(errno));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[1]);

    auto spawned = spawn(argv, actions, fds[1], fds[0]);
    if (!spawned) return spawned.error();
    const pid_t pid = spawned.value();

    ProcessResult result;
    char buffer[65536];
    for (;;) {
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n > 0) {
            result.output.append(buffer, size_t(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    close(fds[0]);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return makeError("cannot wait for '" + argv[0] + "': " + std::strerror(errno));
    }
    if (WIFEXITED(status)) {
        result.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
    }
    return result;
}

Result<std::unique_ptr<LineChild>> LineChild::start(const std::vector<std::string>& argv) {
    if (argv.empty()) return makeError("LineChild: no program given");
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        return makeError(std::string("cannot create a socket pair: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 clears close-on-exec on the copies; both ends close themselves at exec.
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);

    auto spawned = spawn(argv, actions, fds[1], fds[0]);
    if (!spawned) return spawned.error();
    return std::unique_ptr<LineChild>(new LineChild(spawned.value(), fds[0], argv[0]));
}

LineChild::~LineChild() { finish(false); }

void LineChild::finish(bool kill) {
    if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
    }
    if (pid_ <= 0) return;
    // Closed stdin asks it to finish; one that does not within 10 s is killed.
    int status = 0;
    for (int waited = 0; !kill && waited < 1000; ++waited) {
        const pid_t done = waitpid(pid_, &status, WNOHANG);
        if (done == pid_ || (done < 0 && errno != EINTR)) {
            pid_ = -1;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
}

Result<std::string> LineChild::readLine(int timeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        if (const size_t end = pending_.find('\n'); end != std::string::npos) {
            std::string line = pending_.substr(0, end);
            pending_.erase(0, end + 1);
            return line;
        }
        if (fd_ < 0) return makeError("'" + name_ + "' has finished");
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            finish(true);
            return makeError("'" + name_ + "' answered nothing within " + std::to_string(timeoutMs / 1000) + " s (stopped)");
        }
        pollfd p{fd_, POLLIN, 0};
        const int ready = poll(&p, 1, int(left.count()));
        if (ready < 0 && errno != EINTR) return makeError(std::string("cannot wait for an answer: ") + std::strerror(errno));
        if (ready <= 0) continue;
        char buffer[4096];
        const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
        if (n > 0) {
            pending_.append(buffer, size_t(n));
        } else if (n == 0 || errno != EINTR) {
            finish(false);
            return makeError("'" + name_ + "' exited without answering");
        }
    }
}

Result<std::string> LineChild::ask(const std::string& line, int timeoutMs) {
    if (fd_ < 0) return makeError("'" + name_ + "' has finished");
    const std::string message = line + "\n";
    for (size_t sent = 0; sent < message.size();) {
        const ssize_t n = send(fd_, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = std::strerror(errno);
            finish(false);
            return makeError("'" + name_ + "' cannot be asked (" + why + "): it has exited");
        }
        sent += size_t(n);
    }
    return readLine(timeoutMs);
}

std::string currentExecutablePath() {
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return {};
    return std::string(path, size_t(n));
}

} // namespace hearsay
