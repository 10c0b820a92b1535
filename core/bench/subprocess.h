// Runs another program and collects its standard output: the benchmark runs each cache
// configuration in a fresh child process (so its peak memory is its own), makes test models
// with `hearsay-cli make-test-model`, and runs the peers script.
#pragma once

#include "core/util/result.h"

#include <string>
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

// The path of the running executable (/proc/self/exe), or an empty string.
std::string currentExecutablePath();

} // namespace hearsay
