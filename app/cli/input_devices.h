// The capture devices as `hearsay-cli audio devices` and `hearsay-cli stream --list-devices`
// print them: one line each, or why there are none.
#pragma once

namespace hearsay::cli {

// Prints the input devices to stdout; an error goes to stderr after "hearsay-cli <command>: ".
// Returns the command's exit status.
int printInputDevices(const char* command);

} // namespace hearsay::cli
