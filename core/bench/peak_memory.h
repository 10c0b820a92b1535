// Resident memory of this process (current and peak), read from /proc/self/status, so the
// benchmark's cache table can report honest peak memory per configuration (one child each).
#pragma once

#include <cstddef>

namespace hearsay {

// VmHWM: the peak resident set size since the process started, in bytes; falls back to
// getrusage(ru_maxrss) where /proc is not available. 0 when neither can be read.
size_t peakResidentBytes();

// VmRSS: the current resident set size in bytes (0 when unknown).
size_t currentResidentBytes();

} // namespace hearsay
