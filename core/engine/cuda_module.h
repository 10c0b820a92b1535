// The CUDA backend, loaded at run time: builds with CUDA put it in a module of its own,
// lib/hearsay/libhearsay-cuda.so beside bin/ (the same layout in the build tree and in an
// installation), which alone links the CUDA runtime and cuBLAS. A program therefore starts on any
// machine; where the module cannot be loaded (libraries missing, a module of another version), the
// CUDA backend is not offered and the reason says why. HEARSAY_CUDA_MODULE names another module
// file. Loaded once per process, on first use; never unloaded.
#pragma once

#include "core/backend/backend.h"
#include "core/backend/gpu_info.h"
#include "core/util/result.h"

#include <memory>
#include <string>

namespace hearsay::cuda {
struct GpuPeakProbe;
}

namespace hearsay::cuda_module {

// Whether this build has the CUDA backend at all (compiled with CUDA).
bool built();

// Whether the module is loaded (loading it if not yet tried); *why says why not.
bool loaded(std::string* why = nullptr);

// Whether GPU `device` can be used: an NVIDIA driver is present (else the module is not even
// loaded), the module is loaded and its runtime agrees (see kernels/cuda_backend_factory.h).
// *why says why not.
bool deviceAvailable(int device = 0, std::string* why = nullptr);

// A CUDA backend, or an error (kind Device) naming why the module or the GPU cannot be used.
Result<std::shared_ptr<Backend>> createBackend(const BackendOptions& options);

// The GPU's description, and the benchmark's peak probe (kernels/peak_rates.h).
Result<GpuInfo> describeGpu(int device);
Result<cuda::GpuPeakProbe> measurePeakRates(int device);

} // namespace hearsay::cuda_module
