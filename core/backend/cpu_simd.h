// Vector kernels for the CPU backend's own loops (attention scores and weighted sums), with
// an AVX2+FMA version chosen at run time when the CPU has it and a portable fallback.
#pragma once

#include <cstddef>

namespace hearsay::simd {

// Σ a[i]·b[i], i < n.
float dot(const float* a, const float* b, size_t n);
// y[i] += alpha · x[i], i < n.
void axpy(float* y, float alpha, const float* x, size_t n);
// True when the AVX2+FMA versions are in use.
bool usingAvx2();

} // namespace hearsay::simd
