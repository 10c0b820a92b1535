// The description of one GPU a backend can run on, as plain values: what kernels/ reports about
// a device (kernels/peak_rates.h) without the core knowing CUDA. Also compiled by nvcc (C++17).
#pragma once

#include <cstddef>
#include <string>

namespace hearsay {

// One CUDA device as its runtime describes it. The core has no CUDA: the CUDA build fills this
// in (kernels/peak_rates.h: describeGpu) and the benchmark puts it into its report.
struct GpuInfo {
    int index = 0;
    std::string name;               // cudaDeviceProp::name, "NVIDIA H100 80GB HBM3"
    int computeMajor = 0;
    int computeMinor = 0;
    size_t memoryBytes = 0;         // total device memory
    size_t freeMemoryBytes = 0;     // free when described
    int multiprocessors = 0;
    double smClockMhz = 0.0;        // peak SM clock the runtime reports
    double memoryClockMhz = 0.0;    // peak memory clock the runtime reports
    int memoryBusBits = 0;
    int driverVersion = 0;          // cudaDriverGetVersion: 12080 = 12.8
    int runtimeVersion = 0;         // cudaRuntimeGetVersion of the runtime linked in
};

} // namespace hearsay
