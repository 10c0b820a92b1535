// Shared by the libFuzzer targets: loaders that take a path get the input through a scratch file
// (one per process, in memory where /dev/shm exists), and every target checks that a failure is a
// Result with a message, never a crash, a hang or a silent success with nonsense.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace hearsay::fuzz {

inline std::filesystem::path scratchDirectory() {
    static const std::filesystem::path dir = [] {
        const std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
        std::filesystem::path d = base / ("hearsay-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

// Writes the input to `name` in the scratch directory and returns its path.
inline std::filesystem::path writeScratch(const std::string& name, const uint8_t* data, size_t size) {
    const std::filesystem::path path = scratchDirectory() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return path;
}

// A broken invariant: report and abort so that libFuzzer records the input.
[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

#define HEARSAY_FUZZ_CHECK(condition)                        \
    do {                                                     \
        if (!(condition)) ::hearsay::fuzz::fail(#condition); \
    } while (0)

} // namespace hearsay::fuzz
