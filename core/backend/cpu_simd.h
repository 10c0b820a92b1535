// Vector kernels for the CPU backend's own loops (attention scores and weighted sums, f16
// weight rows), with AVX2+FMA(+F16C) versions chosen at run time and portable fallbacks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearsay::simd {

// Σ a[i]·b[i], i < n.
float dot(const float* a, const float* b, size_t n);
// y[i] += alpha · x[i], i < n.
void axpy(float* y, float alpha, const float* x, size_t n);
// Σ a[i]·float(w[i]), i < n, with w IEEE half. Uses the lanes and summation order of dot(), so
// it equals dot(a, float(w), n) bit for bit (except on an AVX2 CPU without F16C).
float dotHalf(const float* a, const uint16_t* w, size_t n);
// out[r] = dotHalf(a + r·stride, w, n) for r < rows (any count; w is read once per 4 rows):
// the same values as separate dotHalf calls.
void dotHalfRows(const float* a, size_t stride, size_t rows, const uint16_t* w, size_t n, float* out);
// dst[i] = float(src[i]), i < n (exact).
void convertHalf(const uint16_t* src, float* dst, size_t n);
// True when the AVX2+FMA versions are in use.
bool usingAvx2();
// True when the F16C versions of dotHalf / convertHalf are in use.
bool usingF16c();

} // namespace hearsay::simd
