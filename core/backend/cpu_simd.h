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
// y[o] = Σ x[i]·float(w[o·n + i]), o < rows: f16 weight rows times one vector. Agrees with
// dotHalf() per row to float rounding (the AVX-512 form, for n a multiple of 16, sums in another
// order; the AVX2 form of long rows equals it).
void gemvHalf(const float* x, const uint16_t* w, size_t n, size_t rows, float* y);
// y[o] = dotQ8(x, row o, n), o < rows, for rows of q8_0 blocks (n a multiple of 32), four rows at
// a time with AVX-512 (sums in another order than dotQ8: equal to float rounding).
void gemvQ8(const float* x, const uint8_t* w, size_t n, size_t rows, float* y);
// One query's attention scores over n key rows that hold `heads` heads of hd elements side by side
// (row i at k + i·stride, head h at its column h·hd; q holds the heads the same way):
// out[h·outStride + i] = scale · q_h·k_ih, for i < n and h < heads. Each row is read whole, the rows
// in order. Each score agrees with dotHalf() to float rounding (the vector forms sum in another
// order). The half form reads the cross cache, the float32 one the self cache.
void headDotsHalf(const float* q, const uint16_t* k, size_t stride, size_t n, size_t heads, size_t hd, float scale,
                  float* out, size_t outStride);
void headDots(const float* q, const float* k, size_t stride, size_t n, size_t heads, size_t hd, float scale, float* out,
              size_t outStride);
// The weights' sum of the value rows, laid out as the keys above: out[h·hd + j] = Σ_i p[h·pStride + i]·v_ih[j]
// for h < heads, j < hd (zeros for n = 0), each element summed over the rows in order (axpy() row by
// row, to float rounding).
void headWeightedSumHalf(const float* p, size_t pStride, const uint16_t* v, size_t stride, size_t n, size_t heads,
                         size_t hd, float* out);
void headWeightedSum(const float* p, size_t pStride, const float* v, size_t stride, size_t n, size_t heads, size_t hd,
                     float* out);
// dst[i] = half(src[i]), i < n, rounded to nearest even (as floatToHalf).
void roundToHalf(const float* src, uint16_t* dst, size_t n);
// y[i] += alpha · float(x[i]), i < n, with x IEEE half: axpy() over a half row.
void axpyHalf(float* y, float alpha, const uint16_t* x, size_t n);
// ggml's q8_0 blocks: 34 bytes for 32 weights, an IEEE half scale d then 32 int8 q (w = d·q).
constexpr size_t kQ8Block = 32;
constexpr size_t kQ8BlockBytes = 34;
// Σ a[i]·w[i], i < n, with w in q8_0 blocks (n a multiple of 32). Each block's products are summed
// in float, then scaled by d: Σ_b d_b · Σ_j a_bj·q_bj (the order differs between paths, so results
// agree to float rounding, not bit for bit).
float dotQ8(const float* a, const uint8_t* w, size_t n);
// dst[i] = d·q of element i, i < n (n a multiple of 32; exact: d·q is rounded once, as a float product).
void convertQ8(const uint8_t* src, float* dst, size_t n);
// ggml's q5_0 blocks: 22 bytes for 32 weights, an IEEE half scale d, 32 high bits qh (bit j for
// element j), then 16 bytes of nibbles (element j < 16 in the low nibble of byte j, element 16 + j
// in its high nibble): w = d·(q - 16), q = nibble + 16·bit. q5_1 blocks: 24 bytes, d, a half
// minimum m, qh, the nibbles: w = d·q + m (cpu_q5.cpp).
constexpr size_t kQ5Block = 32;
constexpr size_t kQ5BlockBytes = 22;
constexpr size_t kQ5_1BlockBytes = 24;
// As dotQ8, gemvQ8 and convertQ8, for rows of q5_0 and q5_1 blocks (n a multiple of 32); AVX-512
// where usingAvx512(), portable elsewhere (slow: a model's q5 matrices are widened to float32 there).
float dotQ5(const float* a, const uint8_t* w, size_t n);
void gemvQ5(const float* x, const uint8_t* w, size_t n, size_t rows, float* y);
void convertQ5(const uint8_t* src, float* dst, size_t n);
float dotQ5_1(const float* a, const uint8_t* w, size_t n);
void gemvQ5_1(const float* x, const uint8_t* w, size_t n, size_t rows, float* y);
void convertQ5_1(const uint8_t* src, float* dst, size_t n);
// Element i of rows of q5_0 / q5_1 blocks, as convertQ5 / convertQ5_1 give it (one element, for lookups).
float elementQ5(const uint8_t* w, size_t i);
float elementQ5_1(const uint8_t* w, size_t i);
// The 32 integers of one block as its weights use them: q − 16 for q5_0, q for q5_1 (w = d·q + m).
void q5BlockIntegers(const uint8_t* block, bool withMin, int* q);
// True when the AVX-512 version of dotQ8 is in use.
bool usingAvx512();
// True when the AVX2+FMA versions are in use.
bool usingAvx2();
// True when the F16C versions of dotHalf / convertHalf are in use.
bool usingF16c();

} // namespace hearsay::simd
