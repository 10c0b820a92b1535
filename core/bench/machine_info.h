// What the benchmark ran on and with: CPU, cores, memory, GPU and driver, build type,
// compiler, commit and date. Carried by every benchmark report so numbers are never orphaned.
#pragma once

#include "core/backend/gpu_info.h"
#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace hearsay {

struct MachineInfo {
    std::string cpuModel;       // "model name" of /proc/cpuinfo, with its x86 family and model
    int logicalCpus = 0;        // CPUs this process may run on (affinity)
    double cpuMhz = 0.0;        // "cpu MHz" of the first CPU (nominal on most VMs)
    std::string cpuFlags;       // the SIMD flags that matter here: "avx2 fma avx512f ..."
    size_t memoryBytes = 0;     // MemTotal
    std::string kernel;         // uname -sr
    double loadAverage = 0.0;   // 1-minute load average when collected (others' work skews timings)
    std::string gpuName;        // /proc/driver/nvidia/gpus/*/information, empty without one
    std::string gpuDriver;      // /proc/driver/nvidia/version, empty without one
    std::optional<GpuInfo> gpu; // the device benchmarked, when the CUDA backend ran
};

struct BuildInfo {
    std::string buildType;      // CMAKE_BUILD_TYPE of the executable
    std::string compiler;       // compiler name and version
    std::string commit;         // git commit the executable was configured from
    bool cuda = false;          // built with the CUDA kernels
};

// Reads /proc and uname; fields that cannot be read stay empty or zero.
MachineInfo collectMachineInfo();

// The compiler that built this file ("GCC 12.2.0", "Clang 16.0.6").
std::string compilerDescription();

// Current UTC time as ISO 8601, "2026-05-09T14:03:00Z".
std::string utcTimestamp();

nlohmann::json toJson(const GpuInfo& gpu);
nlohmann::json toJson(const MachineInfo& machine);
nlohmann::json toJson(const BuildInfo& build);

} // namespace hearsay
