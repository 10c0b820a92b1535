// Formats CUDA and cuBLAS failures (see cuda_check.h).
#include "kernels/cuda_check.h"

namespace hearsay::cuda {

void throwCudaError(cudaError_t status, const char* expr, const char* file, int line) {
    throw CudaError(std::string("CUDA error ") + std::to_string(int(status)) + " (" + cudaGetErrorString(status) +
                    ") in " + expr + " at " + file + ":" + std::to_string(line));
}

void throwCublasError(cublasStatus_t status, const char* expr, const char* file, int line) {
    throw CudaError(std::string("cuBLAS error ") + std::to_string(int(status)) + " (" + cublasGetStatusString(status) +
                    ") in " + expr + " at " + file + ":" + std::to_string(line));
}

} // namespace hearsay::cuda
