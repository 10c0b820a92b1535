// The entry point of the CUDA backend module (libhearsay-cuda.so, built from this library): the
// programs load it at run time (core/engine/cuda_module.h), so they start, and offer the CPU
// backend, on machines without the CUDA runtime or cuBLAS; with them, the CUDA backend is offered.
// Plain C++ header: the engine includes it without CUDA headers. The module and the programs are
// built together; kAbiVersion changes whenever this table does, and a module of another version is
// refused.
#pragma once

#include "core/backend/backend.h"
#include "core/backend/gpu_info.h"
#include "core/util/result.h"
#include "kernels/peak_rates.h"

#include <memory>
#include <string>

namespace hearsay::cuda {

struct ModuleApi {
    static constexpr int kAbiVersion = 1;
    int abiVersion = kAbiVersion;
    bool (*deviceAvailable)(int device, std::string* why) = nullptr;              // cuda_backend_factory.h
    Result<std::shared_ptr<Backend>> (*createBackend)(const BackendOptions&) = nullptr;
    Result<GpuInfo> (*describeGpu)(int device) = nullptr;                        // peak_rates.h
    Result<GpuPeakProbe> (*measurePeakRates)(int device) = nullptr;
};

} // namespace hearsay::cuda

// The one symbol the module exports: its table, valid for as long as the module is loaded.
#define HEARSAY_CUDA_MODULE_ENTRY "hearsay_cuda_module"
extern "C" const hearsay::cuda::ModuleApi* hearsay_cuda_module();
