// The CUDA side of createBackend(): core/engine/backend_factory.cpp calls these only in builds
// with HEARSAY_HAVE_CUDA (hearsay_engine then links this library; the core never does). Plain C++
// declarations, so the engine compiles without CUDA headers.
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
// cannot be used (kind Device; OutOfMemory when it has too little free memory to start; BadInput
// for an unknown HEARSAY_CUDA_DISABLE name). The CLI adds its advice ("--backend cpu"), the GUI
// its button. TF32 GEMMs (float32 weights) are off unless the environment sets HEARSAY_CUDA_TF32=1.
Result<std::shared_ptr<Backend>> createCudaBackend(const BackendOptions& options);

} // namespace hearsay
