// Portable single-threaded SGEMM/SGEMV for builds without OpenBLAS (HEARSAY_BLAS=builtin).
// Blocked over k and n so the inner loop streams contiguous rows; correct for any strides.
#ifdef HEARSAY_BUILTIN_BLAS

#include "core/backend/blas.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace {

// Element (i, j) of op(M) for a row-major M with leading dimension ld.
inline float at(const float* m, int ld, bool transposed, int i, int j) {
    return transposed ? m[static_cast<size_t>(j) * ld + i] : m[static_cast<size_t>(i) * ld + j];
}

} // namespace

void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k,
                 float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
    if (order != CblasRowMajor) throw std::logic_error("builtin BLAS: only row-major sgemm");
    const bool ta = transA == CblasTrans, tb = transB == CblasTrans;
    std::vector<float> accumulator(static_cast<size_t>(n));
    for (int i = 0; i < m; ++i) {
        std::fill(accumulator.begin(), accumulator.end(), 0.0f);
        if (!tb) {
            // Row i of C accumulates rows of B: contiguous inner loop.
            for (int p = 0; p < k; ++p) {
                const float aip = at(a, lda, ta, i, p);
                const float* brow = b + static_cast<size_t>(p) * ldb;
                for (int j = 0; j < n; ++j) accumulator[static_cast<size_t>(j)] += aip * brow[j];
            }
        } else {
            // B transposed: C[i][j] is a dot product of row i of op(A) with row j of B.
            for (int j = 0; j < n; ++j) {
                const float* brow = b + static_cast<size_t>(j) * ldb;
                float sum = 0.0f;
                if (!ta) {
                    const float* arow = a + static_cast<size_t>(i) * lda;
                    for (int p = 0; p < k; ++p) sum += arow[p] * brow[p];
                } else {
                    for (int p = 0; p < k; ++p) sum += at(a, lda, true, i, p) * brow[p];
                }
                accumulator[static_cast<size_t>(j)] = sum;
            }
        }
        float* crow = c + static_cast<size_t>(i) * ldc;
        for (int j = 0; j < n; ++j) {
            const float old = beta == 0.0f ? 0.0f : beta * crow[j];
            crow[j] = alpha * accumulator[static_cast<size_t>(j)] + old;
        }
    }
}

void cblas_sgemv(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n, float alpha, const float* a, int lda,
                 const float* x, int incx, float beta, float* y, int incy) {
    if (order != CblasRowMajor) throw std::logic_error("builtin BLAS: only row-major sgemv");
    const int rows = trans == CblasNoTrans ? m : n;
    const int cols = trans == CblasNoTrans ? n : m;
    for (int i = 0; i < rows; ++i) {
        float sum = 0.0f;
        for (int j = 0; j < cols; ++j) {
            const float aij = trans == CblasNoTrans ? a[static_cast<size_t>(i) * lda + j] : a[static_cast<size_t>(j) * lda + i];
            sum += aij * x[static_cast<ptrdiff_t>(j) * incx];
        }
        float& yi = y[static_cast<ptrdiff_t>(i) * incy];
        yi = alpha * sum + (beta == 0.0f ? 0.0f : beta * yi);
    }
}

#endif // HEARSAY_BUILTIN_BLAS
