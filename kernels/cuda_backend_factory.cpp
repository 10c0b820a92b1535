// createCudaBackend and the device check behind BackendKind::Auto (see cuda_backend_factory.h).
#include "kernels/cuda_backend_factory.h"

#include "kernels/cuda_backend.h"
#include "kernels/device_info.h"

#include <cstdlib>
#include <cstring>
#include <exception>

namespace hearsay {

bool cudaDeviceAvailable(std::string* why) {
    const cuda::DeviceQuery query = cuda::queryDevices();
    if (query.devices.empty()) {
        if (why) *why = query.error.empty() ? "no CUDA device found" : query.error;
        return false;
    }
    return true;
}

Result<std::shared_ptr<Backend>> createCudaBackend(const BackendOptions& options) {
    std::string why;
    if (!cudaDeviceAvailable(&why)) return makeError("the CUDA backend cannot start: " + why + "; use --backend cpu");
    cuda::CudaBackendOptions cudaOptions;
    cudaOptions.device = options.device;
    const char* tf32 = std::getenv("HEARSAY_CUDA_TF32");
    cudaOptions.allowTf32 = tf32 && std::strcmp(tf32, "1") == 0;
    try {
        return std::shared_ptr<Backend>(std::make_shared<cuda::CudaBackend>(cudaOptions));
    } catch (const std::exception& e) {
        return makeError(std::string("the CUDA backend cannot start on GPU ") + std::to_string(options.device) + ": " +
                         e.what() + "; use --backend cpu");
    }
}

} // namespace hearsay
