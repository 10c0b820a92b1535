// The BLAS the CPU backend calls: OpenBLAS's CBLAS by default, or, with the CMake option
// HEARSAY_BLAS=builtin, a small portable implementation of the three calls the engine uses
// (for engine-only builds on machines without an OpenBLAS, such as a bare GPU machine where the
// CPU backend serves only as the reference of the CUDA tests).
#pragma once

#ifndef HEARSAY_BUILTIN_BLAS
#include <cblas.h>
#else

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };

// C = alpha · op(A) · op(B) + beta · C, row-major only.
void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k,
                 float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
// y = alpha · op(A) · x + beta · y, row-major only.
void cblas_sgemv(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n, float alpha, const float* a, int lda,
                 const float* x, int incx, float beta, float* y, int incy);
// The builtin BLAS is single-threaded; the backend's own pool parallelises around it.
inline void openblas_set_num_threads(int) {}

#endif
