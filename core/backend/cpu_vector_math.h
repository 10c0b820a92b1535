// Softmax and GELU over float rows with a vectorised exp (AVX-512 or AVX2+FMA, picked at run
// time): in the encoder the scalar expf/erff of libm were a third of the time (perf, tiny).
// The portable versions (std::exp, std::erf) stay for other CPUs and as the reference.
#pragma once

#include <cstddef>

namespace hearsay::simd {

// In place: x[i] = exp(x[i] - max) / Σ exp(x[j] - max), i < n. Vector exp: Cephes' expf
// polynomial (≤ 2 ulp against std::exp over the range softmax feeds it, x ≤ 0).
void softmax(float* x, size_t n);
// softmax() without its division: x[i] = exp(x[i] - max) in place, returning Σ x[i] (the caller
// scales later, e.g. the weighted sum of an attention row). 0 for n = 0. The max subtracted goes
// to *shift where shift is not null (n > 0): what a sum over parts of a row is rescaled by.
float expShifted(float* x, size_t n, float* shift = nullptr);
// In place: x[i] = 0.5 x (1 + erf(x / √2)) (exact GELU, as Whisper). Vector erf: Abramowitz and
// Stegun 7.1.26 in its erfc form (absolute error of erf ≤ 1.5e-7, relative accuracy kept for
// negative x where GELU is small).
void gelu(float* x, size_t n);
// The portable versions, for tests.
void softmaxPortable(float* x, size_t n);
float expShiftedPortable(float* x, size_t n, float* shift = nullptr);
void geluPortable(float* x, size_t n);
// "avx512", "avx2" or "portable": what softmax() and gelu() run (HEARSAY_VECTOR_MATH=avx2 takes the
// AVX2 forms on a CPU with AVX-512; gemvHalf() follows it too).
const char* vectorMathPath();

} // namespace hearsay::simd
