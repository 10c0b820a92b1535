// The factory behind --backend and the settings' backend (see backend_factory.h).
#include "core/engine/backend_factory.h"

#include "core/backend/cpu_backend.h"
#ifdef HEARSAY_HAVE_CUDA
#include "kernels/cuda_backend_factory.h"
#endif

#include <exception>
#include <new>
#include <string>

namespace hearsay {

Result<std::shared_ptr<Backend>> createBackend(BackendKind kind, BackendOptions options) {
    if (options.threads < 0) return makeError("the thread count must be 0 (all cores) or positive");
    switch (kind) {
    case BackendKind::Cuda:
#ifdef HEARSAY_HAVE_CUDA
        return createCudaBackend(options);
#else
        return makeError("the CUDA backend is not available in this build (built without CUDA)", ErrorKind::Device);
#endif
    case BackendKind::Auto:
#ifdef HEARSAY_HAVE_CUDA
        // A GPU that is present but fails to start is an error, not a silent fall back.
        if (cudaDeviceAvailable(options.device)) return createCudaBackend(options);
#endif
        [[fallthrough]];
    case BackendKind::Cpu:
        try {
            return std::shared_ptr<Backend>(std::make_shared<CpuBackend>(options.threads));
        } catch (const std::exception& e) {
            return makeError(std::string("cannot start the CPU backend: ") + e.what(),
                             dynamic_cast<const std::bad_alloc*>(&e) ? ErrorKind::OutOfMemory : ErrorKind::Device);
        }
    }
    return makeError("unknown backend kind");
}

} // namespace hearsay
