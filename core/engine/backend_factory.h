// createBackend(): the CPU backend, or the CUDA backend of kernels/. It lives in the engine
// library, above both hearsay_core (which defines the Backend interface and the CPU backend) and
// hearsay_kernels (which implements it on a GPU and links the core): the dependencies point one
// way, core <- kernels <- engine, with no cycle between the two static libraries.
#pragma once

#include "core/backend/backend.h"
#include "core/util/result.h"

#include <memory>

namespace hearsay {

// Auto picks CUDA when this build has it and a GPU is present, else the CPU. Cuda in a build or
// on a machine without it is an error saying so (kind Device; advice such as "--backend cpu" is
// the caller's to add). A negative thread count is BadInput.
Result<std::shared_ptr<Backend>> createBackend(BackendKind kind, BackendOptions options = {});

} // namespace hearsay
