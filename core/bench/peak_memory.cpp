// Resident memory from /proc/self/status (Linux), with a getrusage fallback for the peak.
#include "core/bench/peak_memory.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstring>

namespace hearsay {
namespace {

// Reads a "Name:   1234 kB" line of /proc/self/status; returns bytes or 0.
size_t statusField(const char* name) {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t bytes = 0;
    const size_t nameLength = std::strlen(name);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, name, nameLength) == 0 && line[nameLength] == ':') {
            unsigned long long kb = 0;
            if (std::sscanf(line + nameLength + 1, "%llu", &kb) == 1) bytes = size_t(kb) * 1024;
            break;
        }
    }
    std::fclose(f);
    return bytes;
}

} // namespace

size_t peakResidentBytes() {
    if (size_t bytes = statusField("VmHWM")) return bytes;
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) return size_t(usage.ru_maxrss) * 1024;  // kB on Linux
    return 0;
}

size_t currentResidentBytes() { return statusField("VmRSS"); }

} // namespace hearsay
