// Error checks for CUDA runtime and cuBLAS calls: a failure throws CudaError carrying the
// expression, file and line. The backend boundary catches it and reports it to the user.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace hearsay::cuda {

class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throwCudaError(cudaError_t status, const char* expr, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* expr, const char* file, int line);

} // namespace hearsay::cuda

#define HEARSAY_CUDA_CHECK(expr)                                                              \
    do {                                                                                      \
        cudaError_t hearsay_status_ = (expr);                                                 \
        if (hearsay_status_ != cudaSuccess)                                                   \
            ::hearsay::cuda::throwCudaError(hearsay_status_, #expr, __FILE__, __LINE__);      \
    } while (0)

#define HEARSAY_CUBLAS_CHECK(expr)                                                            \
    do {                                                                                      \
        cublasStatus_t hearsay_status_ = (expr);                                              \
        if (hearsay_status_ != CUBLAS_STATUS_SUCCESS)                                         \
            ::hearsay::cuda::throwCublasError(hearsay_status_, #expr, __FILE__, __LINE__);    \
    } while (0)

// Checks the launch of the kernel just enqueued.
#define HEARSAY_CUDA_CHECK_LAUNCH() HEARSAY_CUDA_CHECK(cudaGetLastError())
