// createCudaBackend and the device check behind BackendKind::Auto (see cuda_backend_factory.h).
#include "kernels/cuda_backend_factory.h"

#include "kernels/cuda_backend.h"
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

namespace hearsay {

bool cudaDeviceAvailable(int device, std::string* why) {
    auto no = [why](std::string reason) {
        if (why) *why = std::move(reason);
        return false;
    };
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear the error state for later calls
        return no(std::string("no usable CUDA device: ") + cudaGetErrorString(status));
    }
    if (count == 0) return no("no CUDA device found");
    if (device < 0 || device >= count) {
        return no("GPU " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                  (count == 1 ? " device)" : " devices)"));
    }
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        cudaGetLastError();
        return no("cannot read the compute capability of GPU " + std::to_string(device));
    }
    if (major * 10 + minor < 75) {
        return no("GPU " + std::to_string(device) + " is sm_" + std::to_string(major) + std::to_string(minor) +
                  ", older than sm_75, the oldest this build supports");
    }
    return true;
}

Result<std::shared_ptr<Backend>> createCudaBackend(const BackendOptions& options) {
    std::string why;
    if (!cudaDeviceAvailable(options.device, &why)) {
        return makeError("the CUDA backend cannot start: " + why, ErrorKind::Device);
    }
    cuda::CudaBackendOptions cudaOptions;
    cudaOptions.device = options.device;
    cudaOptions.precision = options.precision;
    const char* tf32 = std::getenv("HEARSAY_CUDA_TF32");
    cudaOptions.allowTf32 = tf32 && std::strcmp(tf32, "1") == 0;
    if (const char* disable = std::getenv("HEARSAY_CUDA_DISABLE")) {
        std::string unknown;
        if (!cuda::disableCudaKernels(cudaOptions, disable, &unknown)) {
            return makeError("HEARSAY_CUDA_DISABLE: unknown kernel '" + unknown +
                             "' (small-linear, tensor-attention, split-attention, lt-bias, half-kv)");
        }
    }
    try {
        return std::shared_ptr<Backend>(std::make_shared<cuda::CudaBackend>(cudaOptions));
    } catch (const std::exception& e) {
        // Out of device memory while starting is OutOfMemory; anything else the device's failure.
        return makeError(std::string("the CUDA backend cannot start on GPU ") + std::to_string(options.device) + ": " +
                             e.what(),
                         dynamic_cast<const std::bad_alloc*>(&e) ? ErrorKind::OutOfMemory : ErrorKind::Device);
    }
}

} // namespace hearsay
