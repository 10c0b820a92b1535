// Attainable peaks of one CUDA device for the benchmark's floors: an fp16 tensor-core GEMM
// (cublasGemmEx, fp32 accumulation) and memory bandwidth (a read kernel and a device-to-device
// copy over 1 GiB), timed with CUDA events. Plain C++ header: the CLI includes it without nvcc.
#pragma once

#include "core/backend/gpu_info.h"
#include "core/util/result.h"

#include <string>

namespace hearsay::cuda {

// What the probe measured, as plain values; the benchmark (core/bench) turns them into the peaks
// its floors divide by (kernels/ depends on the core's backend interface only, never on the bench).
struct GpuPeakProbe {
    GpuInfo gpu;               // the device as the runtime describes it
    double gemmFlopsPerSecond = 0.0;
    double readBytesPerSecond = 0.0;   // bytes read / time
    double copyBytesPerSecond = 0.0;   // (bytes read + bytes written) / time
    // The attainable peaks: flops from the GEMM, bytes the better of read and copy, each with
    // how it was measured ("measured: cublasGemmEx fp16 in/out, ...").
    double flopsPerSecond = 0.0;
    double bytesPerSecond = 0.0;
    std::string flopsSource;
    std::string bytesSource;
};

// The device's description, without measuring anything. Errors name the runtime's reason.
Result<GpuInfo> describeGpu(int device);

// Describes `device` and measures its peaks (about 2 s, 1.4 GiB of device memory for the GEMM's
// 8192² fp16 matrices, 2 GiB for the bandwidth buffers; freed before returning). CUDA or cuBLAS
// failures, out of memory included, come back as errors, never as exceptions.
Result<GpuPeakProbe> measureGpuPeakRates(int device);

} // namespace hearsay::cuda
