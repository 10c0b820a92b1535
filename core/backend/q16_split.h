// The CPU's form of the tied logits table (the token embedding that every decode step multiplies
// by, 40 to 60% of a small model's bytes a token): "q16 split", a matrix [rows][n] (n a multiple of
// 32) kept in two int8 planes. Element j of block b of a row is
//     w = s_b · (hi_j + lo_j / 254),   hi_j = round(w / s_b) in [-127, 127],
//                                      lo_j = round(254 · (w / s_b − hi_j)) in [-127, 127],
// with one IEEE-half scale s_b = max|block| / 127 (rounded up) per 32 elements. The hi plane alone
// is an 8-bit sketch of the table, and the product of a row with x over the sketch is within
//     Σ_b s_b / 2 · Σ_{j in b} |x_j|
// of the product over both planes (|s_b · lo_j / 254| ≤ s_b / 2; the sketch's own rounding of x
// adds a little, SketchInput). So the logits of a decode step
// can read the sketch (half the bytes of f16) and both planes only for the rows that bound cannot
// rule out of the largest (CpuBackend::runLogits). Both planes keep each element within
// s_b / 508 ≈ max|block| / 64516 of the value it was made from: finer than f16's own rounding for
// every element above 1/32 of its block's largest.
//
// Layout, one buffer: the hi plane [rows][n], then the lo plane [rows][n], then the scales
// [rows][n / 32] as IEEE half; each plane is read on its own, so a row's sketch shares no cache
// line with its other plane.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hearsay::simd {

constexpr size_t kQ16SplitBlock = 32;

// Bytes of a table of `elements` elements (a multiple of 32).
constexpr size_t q16SplitBytes(size_t elements) { return 2 * elements + elements / kQ16SplitBlock * 2; }

struct Q16SplitTable {
    const int8_t* hi = nullptr;        // [rows][n]
    const int8_t* lo = nullptr;        // [rows][n]
    const uint16_t* scales = nullptr;  // [rows][n / 32], IEEE half
    size_t rows = 0;
    size_t n = 0;
};

// The planes of a table of rows × n elements at `base`.
Q16SplitTable q16SplitTable(const void* base, size_t rows, size_t n);

// Fills a table at `base` (q16SplitBytes(rows · n) bytes) from f16 rows (src may be unaligned).
void splitHalfRows(const uint16_t* src, size_t rows, size_t n, void* base);

// Element i of the table (row i / n), and rows [first, first + count) widened: both planes, each
// element computed as c_b · (254 · hi_j + lo_j) with c_b = s_b · (1/254) in float (the integer is
// exact, below 2^15, so an element is one rounding of the product).
float q16SplitElement(const Q16SplitTable& t, size_t i);
void q16SplitRows(const Q16SplitTable& t, size_t first, size_t count, float* out);

// Σ_j x_j · w_oj over both planes, the elements as q16SplitElement makes them (two FMA chains per
// lane of 16, a block's first and second halves, then summed).
float dotQ16Split(const float* x, const Q16SplitTable& t, size_t o);
// Prefetches row o's lines of both planes and its scales (into L2), for a dotQ16Split soon after.
void prefetchQ16SplitRow(const Q16SplitTable& t, size_t o);
// out[r] = dotQ16Split(x + r · stride, t, o) for r < inputs (bit for bit), each block of the row
// made once for up to 8 inputs (a beam search's rows).
void dotQ16SplitRows(const float* x, size_t stride, size_t inputs, const Q16SplitTable& t, size_t o, float* out);

// True where the vector kernels below run (AVX-512 with BW and VL).
bool usingQ16SplitKernels();
// True where the CPU keeps an f16 logits table as q16 split (in fp16 precision): where the kernels
// run (the portable loops are slower than the f16 product they would replace) and the
// environment does not set HEARSAY_LOGITS_SKETCH=0 (which keeps the table in f16).
bool usingLogitsSketch();

// One x as the sketch reads it: quantised to int16 per block of 32 (x_j ≈ scale_b · q_j, scale_b =
// max|x_b| / 32767), and what each block adds to the bound: reach_b = Σ_{j in b} |x_j| / 2 (the lo
// plane left out) + 2048 · scale_b (x's rounding, scale_b / 2 an element, against |hi| ≤ 127 over 32
// elements is 2032 · scale_b; the rest is room for the rounding of 1 / scale_b).
struct SketchInput {
    std::vector<int16_t> q;     // [n]
    std::vector<float> scale;   // [n / 32]
    std::vector<float> reach;   // [n / 32]
};
void prepareSketchInput(const float* x, size_t n, SketchInput& out);

// The sketch of rows [first, first + count) against one prepared x: for each row o,
//     approx[o] = Σ_b s_b · scale_b · Σ_{j in b} hi_j · q_j   and   bound[o] = slack(n) · Σ_b s_b · reach_b,
// so that dotQ16Split(x, t, o) lies within [approx − bound, approx + bound]; slack(n) = 1 + n·2^-14
// covers the float rounding of both sums. Reads the hi plane and the scales only; the integer
// products are exact (int16 · int8 pairs summed in int32).
void sketchQ16Split(const SketchInput& x, const Q16SplitTable& t, size_t first, size_t count, float* approx,
                    float* bound);

} // namespace hearsay::simd
