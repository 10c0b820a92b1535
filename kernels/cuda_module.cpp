// The table behind libhearsay-cuda.so (see cuda_module.h). Everything else in the module is hidden
// (kernels/CMakeLists.txt), so its copy of the core never meets the program's.
#include "kernels/cuda_module.h"

#include "kernels/cuda_backend_factory.h"

extern "C" __attribute__((visibility("default"))) const hearsay::cuda::ModuleApi* hearsay_cuda_module() {
    static const hearsay::cuda::ModuleApi api = [] {
        hearsay::cuda::ModuleApi table;
        table.deviceAvailable = &hearsay::cudaDeviceAvailable;
        table.createBackend = &hearsay::createCudaBackend;
        table.describeGpu = &hearsay::cuda::describeGpu;
        table.measurePeakRates = &hearsay::cuda::measureGpuPeakRates;
        return table;
    }();
    return &api;
}
