// CUDA device enumeration (see device_info.h).
#include "kernels/device_info.h"

#include <cuda_runtime.h>

namespace hearsay::cuda {

DeviceQuery queryDevices() {
    DeviceQuery query;
    cudaDriverGetVersion(&query.driverVersion);
    cudaRuntimeGetVersion(&query.runtimeVersion);
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        query.error = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
        cudaGetLastError(); // clear the sticky error state for later calls
        return query;
    }
    if (count == 0) {
        query.error = "no CUDA device found";
        return query;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        DeviceInfo info;
        info.index = i;
        info.name = prop.name;
        info.computeMajor = prop.major;
        info.computeMinor = prop.minor;
        info.totalMemory = prop.totalGlobalMem;
        info.multiprocessors = prop.multiProcessorCount;
        if (cudaSetDevice(i) == cudaSuccess) {
            size_t freeBytes = 0, totalBytes = 0;
            if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) info.freeMemory = freeBytes;
        }
        query.devices.push_back(info);
    }
    return query;
}

} // namespace hearsay::cuda
