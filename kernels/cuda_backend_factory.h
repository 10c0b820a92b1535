// The CUDA side of createBackend(): core/backend/backend.cpp calls these only in builds with
// HEARSAY_HAVE_CUDA (the kernels library then links into every program that links the core).
// Plain C++ declarations, so the core compiles without CUDA headers.
#pragma once

#include "core/backend/backend.h"
#include "core/util/result.h"

#include <memory>
#include <string>

namespace hearsay {

// Whether this process can use CUDA GPU `device` (driver and runtime agree, the device exists
// and is sm_75 or newer, the oldest this build compiles for); *why says why not (the runtime's
// reason). Creates no CUDA context.
bool cudaDeviceAvailable(int device = 0, std::string* why = nullptr);

// A CudaBackend on options.device at options.precision; an error naming the reason when the GPU
// cannot be used. TF32 GEMMs (float32 weights) are off unless the environment sets HEARSAY_CUDA_TF32=1.
Result<std::shared_ptr<Backend>> createCudaBackend(const BackendOptions& options);

} // namespace hearsay
