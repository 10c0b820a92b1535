// The BLAS the CPU backend calls: OpenBLAS by default, loaded at run time (openblas_runtime.cpp)
// so that Hearsay, not OpenBLAS's table of known CPU models, chooses its kernels; or, with the
// CMake option HEARSAY_BLAS=builtin, a small portable implementation of the two products the
// engine uses (builtin_blas.cpp: engine-only builds on machines without OpenBLAS, such as a bare
// GPU machine where the CPU backend serves only as the reference of the CUDA tests).
//
// Why at run time: OpenBLAS (Debian's 0.3.21, built for every x86-64 core) picks its kernels from
// the CPU's model number when it is loaded. A model newer than its table falls back to its oldest
// kernels: on a Xeon of model 207 with AVX-512 it chose "Prescott", and its SGEMM ran at 64 GFLOP/s
// on 2 threads instead of 313 with its SkylakeX kernels. OpenBLAS reads OPENBLAS_CORETYPE once,
// while it loads, so the choice must be made before: a library linked at build time is loaded
// before main() runs.
#pragma once

#include <string>

namespace hearsay::blas {

// C = alpha · A · op(B) + beta · C, row-major, with op(B) = Bᵀ when bTransposed.
// A is m × k (leading dimension lda), op(B) k × n, C m × n.
void sgemm(bool bTransposed, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc);
// y = alpha · A · x + beta · y: row-major A (m × n, leading dimension lda), contiguous x and y.
void sgemv(int m, int n, float alpha, const float* a, int lda, const float* x, float beta, float* y);
// Threads one call may use (the CPU backend keeps 1 and splits the work over its own pool). The
// count is the process's, not a caller's: code that sets another for a while (a probe of the
// SGEMM's rate) puts it back with ThreadsFor, or the backend's products run nested in its pool.
void setThreads(int threads);
int threads();

// Sets the count for its lifetime and then puts back the one it found.
class ThreadsFor {
public:
    explicit ThreadsFor(int n) : m_previous(threads()) { setThreads(n); }
    ~ThreadsFor() { setThreads(m_previous); }
    ThreadsFor(const ThreadsFor&) = delete;
    ThreadsFor& operator=(const ThreadsFor&) = delete;

private:
    int m_previous;
};

// Loads the BLAS if it is not loaded yet. Throws std::runtime_error, saying what to install, when
// it cannot be loaded; the calls above throw the same.
void require();
// Which BLAS runs, with which kernels and who chose them, e.g.
// "OpenBLAS 0.3.21, SkylakeX kernels (chosen for this CPU: AVX-512)".
std::string describe();

} // namespace hearsay::blas
