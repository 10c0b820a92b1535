// Backend selection: names of the kinds and the factory the CLI and GUI use for --backend.
#include "core/backend/backend.h"

#include "core/backend/cpu_backend.h"
#ifdef HEARSAY_HAVE_CUDA
#include "kernels/cuda_backend_factory.h"
#endif

#include <algorithm>
#include <cctype>
#include <new>
#include <string>

namespace hearsay {

std::string_view backendKindName(BackendKind kind) {
    switch (kind) {
    case BackendKind::Auto: return "auto";
    case BackendKind::Cpu: return "cpu";
    case BackendKind::Cuda: return "cuda";
    }
    return "unknown";
}

Result<BackendKind> parseBackendKind(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (BackendKind kind : {BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda}) {
        if (lower == backendKindName(kind)) return kind;
    }
    return makeError("unknown backend '" + std::string(text) + "' (choices: auto, cpu, cuda)");
}

std::string_view precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp16: return "fp16";
    case Precision::Fp32: return "fp32";
    }
    return "unknown";
}

Result<Precision> parsePrecision(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (Precision precision : {Precision::Fp16, Precision::Fp32}) {
        if (lower == precisionName(precision)) return precision;
    }
    return makeError("unknown precision '" + std::string(text) + "' (choices: fp16, fp32)");
}

Result<std::shared_ptr<Backend>> createBackend(BackendKind kind, BackendOptions options) {
    if (options.threads < 0) return makeError("the thread count must be 0 (all cores) or positive");
    switch (kind) {
    case BackendKind::Cuda:
#ifdef HEARSAY_HAVE_CUDA
        return createCudaBackend(options);
#else
        return makeError("the CUDA backend is not available in this build (built without CUDA); use --backend cpu");
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
            return makeError(std::string("cannot start the CPU backend: ") + e.what());
        }
    }
    return makeError("unknown backend kind");
}

} // namespace hearsay
