// The factory behind --backend and the settings' backend (see backend_factory.h).
#include "core/engine/backend_factory.h"

#include "core/backend/cpu_backend.h"
#include "core/engine/cuda_module.h"

#include <exception>
#include <new>
#include <string>

namespace hearsay {

BackendKind resolveBackendKind(BackendKind kind, int device) {
    // A GPU that is present but fails to start is an error, not a silent fall back; a machine
    // without the CUDA libraries (the module not loaded) or without a GPU gets the CPU.
    if (kind == BackendKind::Auto) return cuda_module::deviceAvailable(device) ? BackendKind::Cuda : BackendKind::Cpu;
    return kind;
}

Result<std::shared_ptr<Backend>> createBackend(BackendKind kind, BackendOptions options) {
    if (options.threads < 0) return makeError("the thread count must be 0 (all cores) or positive");
    switch (resolveBackendKind(kind, options.device)) {
    case BackendKind::Cuda:
        return cuda_module::createBackend(options);
    case BackendKind::Auto:  // resolved above
    case BackendKind::Cpu:
        try {
            return std::shared_ptr<Backend>(std::make_shared<CpuBackend>(options.threads, options.precision));
        } catch (const std::exception& e) {
            return makeError(std::string("cannot start the CPU backend: ") + e.what(),
                             dynamic_cast<const std::bad_alloc*>(&e) ? ErrorKind::OutOfMemory : ErrorKind::Device);
        }
    }
    return makeError("unknown backend kind");
}

} // namespace hearsay
