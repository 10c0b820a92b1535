// Portable single-threaded SGEMM/SGEMV for builds without OpenBLAS (HEARSAY_BLAS=builtin).
// The inner loops stream contiguous rows; correct for any leading dimensions.
#ifdef HEARSAY_BUILTIN_BLAS

#include "core/backend/blas.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace hearsay::blas {

void sgemm(bool bTransposed, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc) {
    const bool tb = bTransposed;
    std::vector<float> accumulator(static_cast<size_t>(n));
    for (int i = 0; i < m; ++i) {
        std::fill(accumulator.begin(), accumulator.end(), 0.0f);
        const float* arow = a + static_cast<size_t>(i) * lda;
        if (!tb) {
            // Row i of C accumulates rows of B: contiguous inner loop.
            for (int p = 0; p < k; ++p) {
                const float aip = arow[p];
                const float* brow = b + static_cast<size_t>(p) * ldb;
                for (int j = 0; j < n; ++j) accumulator[static_cast<size_t>(j)] += aip * brow[j];
            }
        } else {
            // B transposed: C[i][j] is a dot product of row i of A with row j of B.
            for (int j = 0; j < n; ++j) {
                const float* brow = b + static_cast<size_t>(j) * ldb;
                float sum = 0.0f;
                for (int p = 0; p < k; ++p) sum += arow[p] * brow[p];
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

void sgemv(int m, int n, float alpha, const float* a, int lda, const float* x, float beta, float* y) {
    for (int i = 0; i < m; ++i) {
        const float* arow = a + static_cast<size_t>(i) * lda;
        float sum = 0.0f;
        for (int j = 0; j < n; ++j) sum += arow[j] * x[j];
        y[i] = alpha * sum + (beta == 0.0f ? 0.0f : beta * y[i]);
    }
}

// Single-threaded: the backend's own pool parallelises around it.
void setThreads(int) {}

int threads() { return 1; }

void require() {}

std::string describe() { return "builtin portable BLAS (single-threaded)"; }

} // namespace hearsay::blas

#endif // HEARSAY_BUILTIN_BLAS
