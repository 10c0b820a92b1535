// Spec-sheet peaks of known NVIDIA data-centre GPUs, looked up by the name the CUDA runtime
// reports, so a benchmark shows the measured peaks beside the vendor's figures.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hearsay {

struct GpuSpec {
    std::string model;             // "H100 SXM5 80GB"
    double memoryBytesPerSecond;   // HBM bandwidth, bytes/s
    double fp16TensorFlops;        // dense fp16 tensor-core FLOP/s with fp32 accumulation (no sparsity)
    std::string source;            // where the figures come from
};

// The spec of the GPU whose cudaDeviceProp::name is `deviceName` ("NVIDIA H100 80GB HBM3",
// "NVIDIA H100 PCIe", "NVIDIA H200", ...); nothing for an unknown or ambiguous name.
std::optional<GpuSpec> lookupGpuSpec(std::string_view deviceName);

} // namespace hearsay
