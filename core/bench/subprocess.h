// Runs another program and collects its standard output: the benchmark runs each cache
// configuration in a fresh child process (so its peak memory is its own), makes test models
// with `hearsay-cli make-test-model`, and runs the peers script.
#pragma once

#include "core/util/result.h"

#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hearsay {

struct ProcessResult {
    int exitCode = -1;       // the child's exit status; -1 when it was killed by a signal
    int signal = 0;          // the signal that ended it, 0 when it exited
    std::string output;      // everything it wrote to stdout
};

// Runs argv[0] (a path, or a name looked up in PATH) with the given arguments; stderr is
// inherited, so the child's messages reach the user. Fails only when the program cannot be
// started; a non-zero exit is reported in the result, not as an error.
Result<ProcessResult> runProcess(const std::vector<std::string>& argv);

// A child kept running that answers each line it is sent with one line: the bench keeps a peer's
// model loaded and asks it for one run at a time, so that its runs and Hearsay's can take turns
// seconds apart. The child's stdin and stdout are one end of a socket pair (so a child that has
// died is an error, not a SIGPIPE); its stderr is inherited.
class LineChild {
public:
    // Starts argv[0] (a path, or a name looked up in PATH); fails when it cannot be started.
    static Result<std::unique_ptr<LineChild>> start(const std::vector<std::string>& argv);
    // Closes its stdin (its signal to finish), waits a few seconds for it, then kills it.
    ~LineChild();
    LineChild(const LineChild&) = delete;
    LineChild& operator=(const LineChild&) = delete;

    // The next line it writes, without the newline. Fails when it closes its stdout (exits) first
    // or writes nothing for `timeoutMs` (then it is killed).
    Result<std::string> readLine(int timeoutMs);
    // Sends `line` and a newline, then reads its answer.
    Result<std::string> ask(const std::string& line, int timeoutMs);

private:
    LineChild(pid_t pid, int fd, std::string name) : pid_(pid), fd_(fd), name_(std::move(name)) {}
    void finish(bool kill);
    pid_t pid_ = -1;
    int fd_ = -1;
    std::string name_;
    std::string pending_;  // read past the last line returned
};

// The path of the running executable (/proc/self/exe), or an empty string.
std::string currentExecutablePath();

} // namespace hearsay
