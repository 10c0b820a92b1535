// createBackend(): the CPU backend, or the CUDA backend of kernels/, which the engine loads at run
// time from its module (cuda_module.h): hearsay_core defines the Backend interface and the CPU
// backend, kernels/ implements it on a GPU and links the core into libhearsay-cuda.so, and the
// engine links neither CUDA nor the kernels: core <- kernels, core <- engine, no cycle.
#pragma once

#include "core/backend/backend.h"
#include "core/util/result.h"

#include <memory>

namespace hearsay {

// Auto picks CUDA when this build has it and a GPU is present, else the CPU. Cuda in a build or
// on a machine without it is an error saying so (kind Device; advice such as "--backend cpu" is
// the caller's to add). A negative thread count is BadInput.
Result<std::shared_ptr<Backend>> createBackend(BackendKind kind, BackendOptions options = {});

// The backend createBackend(kind) starts on `device`: Auto resolved as above, the others as given.
BackendKind resolveBackendKind(BackendKind kind, int device = 0);

} // namespace hearsay
