// CublasHandle: stream, cuBLAS handle and workspace (see cublas_handle.h).
#include "kernels/cublas_handle.h"

#include "kernels/cuda_check.h"

namespace hearsay::cuda {

CublasHandle::CublasHandle(bool allowTf32) : m_tf32(allowTf32) {
    try {
        HEARSAY_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
        HEARSAY_CUBLAS_CHECK(cublasCreate(&m_handle));
        HEARSAY_CUBLAS_CHECK(cublasSetStream(m_handle, m_stream));
        HEARSAY_CUBLAS_CHECK(cublasLtCreate(&m_lt));
        // A workspace of our own, so cuBLAS never allocates behind our back (and a later CUDA
        // graph capture sees fixed memory). 32 MiB is NVIDIA's recommendation for Hopper.
        m_workspaceBytes = size_t(32) << 20;
        HEARSAY_CUDA_CHECK(cudaMalloc(&m_workspace, m_workspaceBytes));
        HEARSAY_CUBLAS_CHECK(cublasSetWorkspace(m_handle, m_workspace, m_workspaceBytes));
        // Pedantic math forbids TF32 even under NVIDIA_TF32_OVERRIDE; TF32 only when asked for.
        HEARSAY_CUBLAS_CHECK(cublasSetMathMode(m_handle, allowTf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
    } catch (...) {
        if (m_lt) cublasLtDestroy(m_lt);
        if (m_handle) cublasDestroy(m_handle);
        if (m_workspace) cudaFree(m_workspace);
        if (m_stream) cudaStreamDestroy(m_stream);
        throw;
    }
}

CublasHandle::~CublasHandle() {
    // Errors here cannot be reported (destructor); the stream is drained first.
    cudaStreamSynchronize(m_stream);
    for (auto& [key, plan] : m_ltPlans) {
        if (plan.a) cublasLtMatrixLayoutDestroy(plan.a);
        if (plan.b) cublasLtMatrixLayoutDestroy(plan.b);
        if (plan.c) cublasLtMatrixLayoutDestroy(plan.c);
        if (plan.desc) cublasLtMatmulDescDestroy(plan.desc);
    }
    cublasLtDestroy(m_lt);
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

namespace {

// The largest power of two ≤ 256 that divides the address (cuBLASLt's alignment preferences).
int alignmentOf(const void* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    int alignment = 256;
    while (alignment > 1 && address % uintptr_t(alignment) != 0) alignment /= 2;
    return alignment;
}

} // namespace

CublasHandle::LtPlan& CublasHandle::ltPlan(const LtKey& key, const float* bias) {
    if (auto it = m_ltPlans.find(key); it != m_ltPlans.end()) return it->second;
    LtPlan& plan = m_ltPlans[key];  // found = false until an algorithm is chosen
    // alignBias only keys the plan: the heuristic reads the bias pointer set on the descriptor.
    [[maybe_unused]] const auto [rows, in, out, alignA, alignB, alignC, alignBias] = key;
    // The layout of gemmHalfRowsByWeightsT in column-major terms: D[out][rows] = op(A) · B with
    // A = w stored [in][out] (ld in) and transposed, B = x stored [in][rows] (ld in), C = D = y
    // stored [out][rows] (ld out). The bias has one entry per row of D: per output feature.
    HEARSAY_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transA = CUBLAS_OP_T, transB = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    HEARSAY_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA)));
    HEARSAY_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB)));
    HEARSAY_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    HEARSAY_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    HEARSAY_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.a, CUDA_R_16F, uint64_t(in), uint64_t(out), int64_t(in)));
    HEARSAY_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.b, CUDA_R_16F, uint64_t(in), uint64_t(rows), int64_t(in)));
    HEARSAY_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.c, CUDA_R_32F, uint64_t(out), uint64_t(rows), int64_t(out)));

    cublasLtMatmulPreference_t preference = nullptr;
    HEARSAY_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    const uint64_t workspace = m_workspaceBytes;
    const uint32_t alignments[4] = {uint32_t(alignA), uint32_t(alignB), uint32_t(alignC), uint32_t(alignC)};
    cublasStatus_t status =
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
    const cublasLtMatmulPreferenceAttributes_t alignmentAttributes[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; ++i) {
        status = cublasLtMatmulPreferenceSetAttribute(preference, alignmentAttributes[i], &alignments[i],
                                                      sizeof(alignments[i]));
    }
    cublasLtMatmulHeuristicResult_t result{};
    int count = 0;
    if (status == CUBLAS_STATUS_SUCCESS) {
        status = cublasLtMatmulAlgoGetHeuristic(m_lt, plan.desc, plan.a, plan.b, plan.c, plan.c, preference, 1, &result,
                                                &count);
    }
    cublasLtMatmulPreferenceDestroy(preference);
    // No algorithm (or a refused preference) is not an error: the caller falls back.
    plan.found = status == CUBLAS_STATUS_SUCCESS && count > 0 && result.state == CUBLAS_STATUS_SUCCESS;
    if (plan.found) plan.algo = result.algo;
    return plan;
}

bool CublasHandle::gemmHalfBiasRowsByWeightsT(const void* x, const void* w, const float* bias, float* y, int rows,
                                              int in, int out, float beta) {
    const LtKey key{rows, in, out, alignmentOf(w), alignmentOf(x), alignmentOf(y), alignmentOf(bias)};
    LtPlan& plan = ltPlan(key, bias);
    if (!plan.found) return false;
    HEARSAY_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    const float alpha = 1.0f;
    HEARSAY_CUBLAS_CHECK(cublasLtMatmul(m_lt, plan.desc, &alpha, w, plan.a, x, plan.b, &beta, y, plan.c, y, plan.c,
                                        &plan.algo, m_workspace, m_workspaceBytes, m_stream));
    return true;
}

} // namespace hearsay::cuda
