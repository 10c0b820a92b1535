// CublasHandle: stream, cuBLAS handle and workspace (see cublas_handle.h).
#include "kernels/cublas_handle.h"

#include "kernels/cuda_check.h"

namespace hearsay::cuda {

CublasHandle::CublasHandle(bool allowTf32) : m_tf32(allowTf32) {
    try {
        HEARSAY_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
        HEARSAY_CUBLAS_CHECK(cublasCreate(&m_handle));
        HEARSAY_CUBLAS_CHECK(cublasSetStream(m_handle, m_stream));
        // A workspace of our own, so cuBLAS never allocates behind our back (and a later CUDA
        // graph capture sees fixed memory). 32 MiB is NVIDIA's recommendation for Hopper.
        m_workspaceBytes = size_t(32) << 20;
        HEARSAY_CUDA_CHECK(cudaMalloc(&m_workspace, m_workspaceBytes));
        HEARSAY_CUBLAS_CHECK(cublasSetWorkspace(m_handle, m_workspace, m_workspaceBytes));
        // Pedantic math forbids TF32 even under NVIDIA_TF32_OVERRIDE; TF32 only when asked for.
        HEARSAY_CUBLAS_CHECK(cublasSetMathMode(m_handle, allowTf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
    } catch (...) {
        if (m_handle) cublasDestroy(m_handle);
        if (m_workspace) cudaFree(m_workspace);
        if (m_stream) cudaStreamDestroy(m_stream);
        throw;
    }
}

CublasHandle::~CublasHandle() {
    // Errors here cannot be reported (destructor); the stream is drained first.
    cudaStreamSynchronize(m_stream);
    cublasDestroy(m_handle);
    cudaFree(m_workspace);
    cudaStreamDestroy(m_stream);
}

void CublasHandle::gemmRowsByWeightsT(const float* x, const float* w, float* y, int rows, int in, int out,
                                      float beta) {
    // cuBLAS is column-major: the row-major y[rows][out] is the column-major yᵀ[out][rows], and
    // yᵀ = W · xᵀ where W (row-major [out][in]) is column-major [in][out], transposed.
    const float alpha = 1.0f;
    HEARSAY_CUBLAS_CHECK(cublasSgemm(m_handle, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, &alpha, w, in, x, in, &beta,
                                     y, out));
}

void CublasHandle::gemmHalfRowsByWeightsT(const void* x, const void* w, float* y, int rows, int in, int out,
                                          float beta) {
    // The layout of gemmRowsByWeightsT. A/B CUDA_R_16F, C CUDA_R_32F with CUBLAS_COMPUTE_32F and
    // float alpha/beta is one of cublasGemmEx's supported combinations. The explicit compute
    // type is not affected by the handle's CUBLAS_PEDANTIC_MATH (which only maps the legacy
    // cudaDataType compute types to their _PEDANTIC forms), so tensor cores stay allowed;
    // CUBLAS_GEMM_DEFAULT lets cuBLAS pick them (CUBLAS_GEMM_DEFAULT_TENSOR_OP is deprecated).
    const float alpha = 1.0f;
    HEARSAY_CUBLAS_CHECK(cublasGemmEx(m_handle, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, &alpha, w, CUDA_R_16F, in, x,
                                      CUDA_R_16F, in, &beta, y, CUDA_R_32F, out, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
}

} // namespace hearsay::cuda
