// One owner for a backend's CUDA stream, the cuBLAS handle bound to it and cuBLAS's
// workspace: every op of a CudaBackend is ordered on this one stream.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

namespace hearsay::cuda {

class CublasHandle {
public:
    // allowTf32: GEMMs may use TF32 tensor cores (about 1e-3 relative); off: exact fp32.
    explicit CublasHandle(bool allowTf32);
    ~CublasHandle();
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;

    cudaStream_t stream() const { return m_stream; }
    bool tf32() const { return m_tf32; }

    // Row-major y[rows][out] = x[rows][in] · w[out][in]ᵀ + beta · y, fp32 accumulation.
    // Not thread-safe (one handle): the caller serialises calls.
    void gemmRowsByWeightsT(const float* x, const float* w, float* y, int rows, int in, int out, float beta);
    // The same product with x and w as IEEE half (x: [rows][in], w: [out][in], row-major) and y
    // float32: cublasGemmEx, fp32 accumulation (CUBLAS_COMPUTE_32F), tensor cores where the
    // shapes allow (cuBLAS falls back to other kernels for leading dimensions that are not
    // multiples of 8; the result is the same product). Not thread-safe, as above.
    void gemmHalfRowsByWeightsT(const void* x, const void* w, float* y, int rows, int in, int out, float beta);
    // The same half product with the bias added in cuBLASLt's epilogue (CUBLASLT_EPILOGUE_BIAS,
    // bias float32 [out]): y = x · wᵀ + bias + beta · y in one pass over y, instead of a bias
    // broadcast into y followed by a GEMM that reads y back. Returns false (nothing enqueued)
    // when cuBLASLt offers no algorithm for these shapes and alignments; the caller then takes
    // the broadcast + GemmEx path. Descriptors and the chosen algorithm are kept per shape.
    // Not thread-safe, as above.
    bool gemmHalfBiasRowsByWeightsT(const void* x, const void* w, const float* bias, float* y, int rows, int in,
                                    int out, float beta);

private:
    // One cuBLASLt problem: shape and the pointers' alignments (w, x, y, bias: they decide the
    // algorithms allowed; β is a call argument). found = false: cuBLASLt had none (remembered,
    // not asked again).
    using LtKey = std::tuple<int, int, int, int, int, int, int>;
    struct LtPlan {
        bool found = false;
        cublasLtMatmulDesc_t desc = nullptr;
        cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
        cublasLtMatmulAlgo_t algo{};
    };
    LtPlan& ltPlan(const LtKey& key, const float* bias);

    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_handle = nullptr;
    cublasLtHandle_t m_lt = nullptr;
    std::map<LtKey, LtPlan> m_ltPlans;
    void* m_workspace = nullptr;
    size_t m_workspaceBytes = 0;
    bool m_tf32 = false;
};

} // namespace hearsay::cuda
