// Running a helper program of the desktop (wtype, wl-copy, wl-paste, swaymsg) for the typers: its
// arguments as a list (no shell), some bytes on its standard input, its output and errors kept,
// and a bounded wait: a program that does not finish in time is killed and reported.
#pragma once

#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

struct ChildOutput {
    int exitCode = -1;   // -1 when a signal ended it
    std::string out;     // standard output
    std::string errors;  // standard error, trailing newlines removed
};

// Runs argv[0] (looked up in $PATH) with `input` on its standard input and waits at most
// `timeoutMs` for it to exit. The wait ends when the program itself exits: a background process
// it leaves behind (wl-copy serving the clipboard) may keep the pipes open without holding it up.
// An error when the program is not installed (naming `package`, the Debian package that has it),
// cannot start, or does not finish in time; a non-zero exit is not an error here (exitCode).
Result<ChildOutput> runChild(const std::vector<std::string>& argv, std::string_view input, int timeoutMs,
                             std::string_view package);

} // namespace hearsay
