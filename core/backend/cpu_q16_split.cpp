// The q16 split table's conversions and products (q16_split.h): AVX-512 where the CPU has it
// (the sketch is what a decode step runs over the whole vocabulary), portable loops elsewhere.
#include "core/backend/q16_split.h"

#include "core/backend/cpu_simd.h"
#include "core/backend/row_prefetch.h"
#include "core/backend/x86_simd.h"
#include "core/util/half.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace hearsay::simd {
namespace {

constexpr float kLoScale = 1.0f / 254.0f;

// The slack on the sketch's bound for the float rounding of its sum and of the exact one.
float boundSlack(size_t n) { return 1.0f + float(n) * (1.0f / 16384.0f); }

// One block of 32 values (widened from halves) into its scale and planes; a value that is not
// finite gets zeros.
void splitBlock(const float* v, int8_t* hi, int8_t* lo, uint16_t* scale) {
    float largest = 0.0f;
    for (size_t j = 0; j < kQ16SplitBlock; ++j) largest = std::max(largest, std::fabs(v[j]));
    // The scale as stored (half), so that the planes are made against the value they are read with:
    // rounded up where rounding went down, so that |w / s| ≤ 127 and hi and lo need no clamping; a
    // block too small for a normal half scale keeps the smallest normal one.
    uint16_t h = floatToHalf(largest / 127.0f);
    if (halfToFloat(h) * 127.0f < largest) ++h;
    if (largest > 0.0f && halfToFloat(h) < 6.103515625e-05f) h = 0x0400;
    const float s = halfToFloat(h);
    *scale = largest > 0.0f ? h : 0;
    for (size_t j = 0; j < kQ16SplitBlock; ++j) {
        if (largest == 0.0f || !std::isfinite(v[j])) {
            hi[j] = lo[j] = 0;
            continue;
        }
        const float q = v[j] / s;
        const float high = std::clamp(std::nearbyint(q), -127.0f, 127.0f);
        const float low = std::clamp(std::nearbyint((q - high) * 254.0f), -127.0f, 127.0f);
        hi[j] = static_cast<int8_t>(high);
        lo[j] = static_cast<int8_t>(low);
    }
}

#ifdef HEARSAY_SIMD_X86
// splitBlock for float values, 32 at a time; a block holding anything but finite values goes to
// splitBlock, which zeroes those.
__attribute__((target("avx512f,avx512bw"))) void splitBlocksAvx512(const float* v, size_t blocks, int8_t* hi,
                                                                    int8_t* lo, uint16_t* scales) {
    const __m512 limit = _mm512_set1_ps(127.0f), loMultiplier = _mm512_set1_ps(254.0f);
    for (size_t b = 0; b < blocks; ++b) {
        const float* w = v + b * kQ16SplitBlock;
        const __m512 v0 = _mm512_loadu_ps(w), v1 = _mm512_loadu_ps(w + 16);
        const __mmask16 finite = _mm512_cmp_ps_mask(_mm512_abs_ps(v0), _mm512_set1_ps(INFINITY), _CMP_LT_OQ) &
                                 _mm512_cmp_ps_mask(_mm512_abs_ps(v1), _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
        const float largest = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
        if (finite != 0xFFFF || largest == 0.0f) {
            splitBlock(w, hi + b * kQ16SplitBlock, lo + b * kQ16SplitBlock, scales + b);
            continue;
        }
        uint16_t h = floatToHalf(largest / 127.0f);
        if (halfToFloat(h) * 127.0f < largest) ++h;
        if (halfToFloat(h) < 6.103515625e-05f) h = 0x0400;
        scales[b] = h;
        const __m512 s = _mm512_set1_ps(halfToFloat(h));
        for (int part = 0; part < 2; ++part) {
            const __m512 q = _mm512_div_ps(part ? v1 : v0, s);
            const __m512 high = _mm512_min_ps(_mm512_max_ps(_mm512_roundscale_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                                                            _mm512_sub_ps(_mm512_setzero_ps(), limit)),
                                              limit);
            const __m512 low = _mm512_min_ps(
                _mm512_max_ps(_mm512_roundscale_ps(_mm512_mul_ps(_mm512_sub_ps(q, high), loMultiplier),
                                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                              _mm512_sub_ps(_mm512_setzero_ps(), limit)),
                limit);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(hi + b * kQ16SplitBlock + 16 * part), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(high)));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(lo + b * kQ16SplitBlock + 16 * part), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(low)));
        }
    }
}
#endif

// Blocks [0, blocks) of float values into the planes: vectorised where the sketch's kernels run.
void splitFloatBlocks(const float* v, size_t blocks, int8_t* hi, int8_t* lo, uint16_t* scales) {
#ifdef HEARSAY_SIMD_X86
    if (usingQ16SplitKernels()) return splitBlocksAvx512(v, blocks, hi, lo, scales);
#endif
    for (size_t b = 0; b < blocks; ++b) {
        const size_t at = b * kQ16SplitBlock;
        splitBlock(v + at, hi + at, lo + at, scales + b);
    }
}

// The table's planes from rows of halves, widened a chunk at a time.
void splitRows(const uint16_t* src, size_t rows, size_t n, void* base) {
    auto* hi = static_cast<int8_t*>(base);
    int8_t* lo = hi + rows * n;
    auto* scales = reinterpret_cast<uint16_t*>(lo + rows * n);
    const size_t blocks = rows * n / kQ16SplitBlock;
    constexpr size_t kChunkBlocks = 256;
    std::vector<uint16_t> halves(kChunkBlocks * kQ16SplitBlock);
    std::vector<float> values(kChunkBlocks * kQ16SplitBlock);
    for (size_t b = 0; b < blocks; b += kChunkBlocks) {
        const size_t count = std::min(kChunkBlocks, blocks - b), at = b * kQ16SplitBlock;
        std::memcpy(halves.data(), src + at, count * kQ16SplitBlock * sizeof(uint16_t));  // src may be unaligned
        convertHalf(halves.data(), values.data(), count * kQ16SplitBlock);
        splitFloatBlocks(values.data(), count, hi + at, lo + at, scales + b);
    }
}

// Block b's factor c_b = s_b / 254: an element is c_b · (254 · hi + lo), an integer below 2^15
// times one float.
inline float blockFactor(uint16_t scale) { return halfToFloat(scale) * kLoScale; }
inline float elementOf(float factor, int8_t hi, int8_t lo) { return factor * float(254 * int(hi) + int(lo)); }

float dotPortable(const float* x, const Q16SplitTable& t, size_t o) {
    const int8_t* hi = t.hi + o * t.n;
    const int8_t* lo = t.lo + o * t.n;
    const uint16_t* scales = t.scales + o * (t.n / kQ16SplitBlock);
    float sum = 0.0f;
    for (size_t j = 0; j < t.n; ++j) sum += elementOf(blockFactor(scales[j / kQ16SplitBlock]), hi[j], lo[j]) * x[j];
    return sum;
}

void sketchPortable(const SketchInput& x, const Q16SplitTable& t, size_t first, size_t count, float* approx,
                    float* bound) {
    const size_t blocks = t.n / kQ16SplitBlock;
    const float slack = boundSlack(t.n);
    for (size_t o = first; o < first + count; ++o) {
        const int8_t* hi = t.hi + o * t.n;
        const uint16_t* scales = t.scales + o * blocks;
        prefetchRowsAhead(hi, t.n, t.hi + t.rows * t.n);
        float sum = 0.0f, reach = 0.0f;
        for (size_t b = 0; b < blocks; ++b) {
            int32_t block = 0;
            for (size_t j = b * kQ16SplitBlock; j < (b + 1) * kQ16SplitBlock; ++j) block += int32_t(hi[j]) * x.q[j];
            const float s = halfToFloat(scales[b]);
            sum += s * x.scale[b] * float(block);
            reach += s * x.reach[b];
        }
        approx[o - first] = sum;
        bound[o - first] = slack * reach;
    }
}

#ifdef HEARSAY_SIMD_X86
// A row's block scales as floats, 16 at a time (the last group padded with zeros by a masked load:
// a copy into a padded array would make the load wait on store forwarding, for every row of a
// table whose rows have fewer than 16 blocks).
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m512 scales16(const uint16_t* s, size_t left) {
    const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, s));
}

// One block's 32 elements as two vectors of floats: 254 · hi + lo in int16 (exact: |·| ≤ 32385),
// widened to int32, converted (exact) and multiplied by the block's factor (one rounding), as
// elementOf.
struct BlockValues {
    __m512 v0, v1;
};
__attribute__((target("avx512f,avx512bw"))) inline BlockValues blockValues(const int8_t* hi, const int8_t* lo,
                                                                             __m512 factor) {
    const __m512i h = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi)));
    const __m512i l = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo)));
    const __m512i w = _mm512_add_epi16(_mm512_mullo_epi16(h, _mm512_set1_epi16(254)), l);
    const __m512 v0 = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(w)));
    const __m512 v1 = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(w, 1)));
    return {_mm512_mul_ps(v0, factor), _mm512_mul_ps(v1, factor)};
}

// dotQ16Split for R inputs (rows of x, `stride` apart) against one table row: each block's elements
// made once for all of them, each input's sum as dotQ16Split takes it (the same FMA chains over
// the same element values, so equal bit for bit).
template <int R>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void dotRowsAvx512(const float* x, size_t stride, const Q16SplitTable& t,
                                                                size_t o, float* out) {
    const size_t blocks = t.n / kQ16SplitBlock;
    const int8_t* hi = t.hi + o * t.n;
    const int8_t* lo = t.lo + o * t.n;
    const uint16_t* scales = t.scales + o * blocks;
    const __m512 loScale = _mm512_set1_ps(kLoScale);
    // Two chains an input (a block's first and second 16 elements), so that one input's sums wait
    // on one FMA's latency a block, not two.
    __m512 acc0[R], acc1[R];
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
    for (size_t g = 0; g < blocks; g += 16) {
        // The factors of 16 blocks in one register, each broadcast from it in turn (a store and 16
        // scalar loads would wait on store forwarding).
        const __m512 factors = _mm512_mul_ps(scales16(scales + g, blocks - g), loScale);
        for (size_t b = g; b < std::min(blocks, g + 16); ++b) {
            const size_t j = b * kQ16SplitBlock;
            const __m512 factor = _mm512_permutexvar_ps(_mm512_set1_epi32(int(b - g)), factors);
            const BlockValues v = blockValues(hi + j, lo + j, factor);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                const float* xr = x + size_t(r) * stride + j;
                acc0[r] = _mm512_fmadd_ps(v.v0, _mm512_loadu_ps(xr), acc0[r]);
                acc1[r] = _mm512_fmadd_ps(v.v1, _mm512_loadu_ps(xr + 16), acc1[r]);
            }
        }
    }
    for (int r = 0; r < R; ++r) out[r] = _mm512_reduce_add_ps(_mm512_add_ps(acc0[r], acc1[r]));
}

// The sums of four vectors, in the four lanes of the result.
__attribute__((target("avx512f"))) inline __m128 reduce4(__m512 a, __m512 b, __m512 c, __m512 d) {
    const __m512 ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    const __m512 cd = _mm512_add_ps(_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
    const __m512 abcd = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))),
                                      _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))));
    const __m512 halves = _mm512_add_ps(abcd, _mm512_shuffle_f32x4(abcd, abcd, 0x4E));
    const __m512 quarters = _mm512_add_ps(halves, _mm512_shuffle_f32x4(halves, halves, 0xB1));
    return _mm512_castps512_ps128(quarters);
}

// One row's block b: s_b · scale_b · Σ hi · q, added to acc (32 int8 widened to int16, multiplied
// with x's int16 and summed in pairs to int32: exact).
__attribute__((target("avx512f,avx512bw"))) inline __m512 sketchBlock(const int8_t* hi, __m512i q, const float* factor,
                                                                       __m512 acc) {
    const __m512i w = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi)));
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_madd_epi16(w, q)), _mm512_set1_ps(*factor), acc);
}

// Σ_b scales[b] · values[b] over a row's blocks, as a vector to be reduced.
__attribute__((target("avx512f"))) inline __m512 blockDot(const float* scales, const float* values, size_t blocks) {
    __m512 acc = _mm512_setzero_ps();
    for (size_t g = 0; g < blocks; g += 16) {
        const size_t left = blocks - g;
        const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
        acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, scales + g), _mm512_maskz_loadu_ps(mask, values + g), acc);
    }
    return acc;
}

// Four rows at a time, sharing the loads of x, with one reduction for the four; the rows' lines are
// prefetched as they are read (as the f16 rows' product does, row_prefetch.h). The scales of all
// the rows come first, widened and multiplied by x's block scales.
__attribute__((target("avx512f,avx512bw"))) void sketchAvx512(const SketchInput& x, const Q16SplitTable& t,
                                                               size_t first, size_t count, float* approx,
                                                               float* bound) {
    const size_t n = t.n, blocks = n / kQ16SplitBlock;
    const float slack = boundSlack(n);
    thread_local std::vector<float> scalesOfRows, factorsOfRows;  // [count][blocks]
    scalesOfRows.resize(count * blocks + 16);
    factorsOfRows.resize(count * blocks);
    const uint16_t* scales = t.scales + first * blocks;
    prefetchRowsAhead(scales, count * blocks * sizeof(uint16_t), t.scales + t.rows * blocks);
    size_t k = 0;
    for (; k + 16 <= count * blocks; k += 16) {
        _mm512_storeu_ps(scalesOfRows.data() + k,
                         _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(scales + k))));
    }
    for (; k < count * blocks; ++k) scalesOfRows[k] = halfToFloat(scales[k]);
    for (size_t r = 0; r < count; ++r) {
        for (size_t b = 0; b < blocks; ++b) factorsOfRows[r * blocks + b] = scalesOfRows[r * blocks + b] * x.scale[b];
    }
    const int8_t* end = t.hi + t.rows * n;
    const size_t ahead = groupPrefetchDistance(4 * n);
    size_t r = 0;
    for (; r + 4 <= count; r += 4) {
        const int8_t* r0 = t.hi + (first + r) * n;
        const bool prefetch = size_t(end - r0) >= ahead + 4 * n;
        const float* f = factorsOfRows.data() + r * blocks;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
        for (size_t b = 0; b < blocks; ++b) {
            const size_t j = b * kQ16SplitBlock;
            if (prefetch && b % 2 == 0) prefetchFourRows(r0 + j, n, ahead);
            const __m512i q = _mm512_loadu_si512(x.q.data() + j);
            a0 = sketchBlock(r0 + j, q, f + b, a0);
            a1 = sketchBlock(r0 + n + j, q, f + blocks + b, a1);
            a2 = sketchBlock(r0 + 2 * n + j, q, f + 2 * blocks + b, a2);
            a3 = sketchBlock(r0 + 3 * n + j, q, f + 3 * blocks + b, a3);
        }
        _mm_storeu_ps(approx + r, reduce4(a0, a1, a2, a3));
        const float* s = scalesOfRows.data() + r * blocks;
        const __m128 reach = reduce4(blockDot(s, x.reach.data(), blocks), blockDot(s + blocks, x.reach.data(), blocks),
                                     blockDot(s + 2 * blocks, x.reach.data(), blocks),
                                     blockDot(s + 3 * blocks, x.reach.data(), blocks));
        _mm_storeu_ps(bound + r, _mm_mul_ps(reach, _mm_set1_ps(slack)));
    }
    for (; r < count; ++r) {
        const int8_t* row = t.hi + (first + r) * n;
        __m512 a = _mm512_setzero_ps();
        for (size_t b = 0; b < blocks; ++b) {
            a = sketchBlock(row + b * kQ16SplitBlock, _mm512_loadu_si512(x.q.data() + b * kQ16SplitBlock),
                            factorsOfRows.data() + r * blocks + b, a);
        }
        approx[r] = _mm512_reduce_add_ps(a);
        bound[r] = slack * _mm512_reduce_add_ps(blockDot(scalesOfRows.data() + r * blocks, x.reach.data(), blocks));
    }
}

bool detectSketchKernels() {
    __builtin_cpu_init();
    return usingAvx512() && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}
#else
bool detectSketchKernels() { return false; }
#endif

} // namespace

Q16SplitTable q16SplitTable(const void* base, size_t rows, size_t n) {
    Q16SplitTable t;
    t.hi = static_cast<const int8_t*>(base);
    t.lo = t.hi + rows * n;
    t.scales = reinterpret_cast<const uint16_t*>(t.lo + rows * n);
    t.rows = rows;
    t.n = n;
    return t;
}

void splitHalfRows(const uint16_t* src, size_t rows, size_t n, void* base) { splitRows(src, rows, n, base); }

float q16SplitElement(const Q16SplitTable& t, size_t i) {
    return elementOf(blockFactor(t.scales[i / kQ16SplitBlock]), t.hi[i], t.lo[i]);
}

void q16SplitRows(const Q16SplitTable& t, size_t first, size_t count, float* out) {
    // As q16SplitElement, each block's scale widened once rather than once an element (a GEMM of many
    // rows, a forced pass's logits, widens the whole table).
    for (size_t b = first * t.n / kQ16SplitBlock; b < (first + count) * t.n / kQ16SplitBlock; ++b) {
        const float factor = blockFactor(t.scales[b]);
        for (size_t i = b * kQ16SplitBlock; i < (b + 1) * kQ16SplitBlock; ++i) *out++ = elementOf(factor, t.hi[i], t.lo[i]);
    }
}

float dotQ16Split(const float* x, const Q16SplitTable& t, size_t o) {
    float out = 0.0f;
    dotQ16SplitRows(x, 0, 1, t, o, &out);
    return out;
}

void prefetchQ16SplitRow(const Q16SplitTable& t, size_t o) {
    prefetchBytes(t.hi + o * t.n, t.n);
    prefetchBytes(t.lo + o * t.n, t.n);
    prefetchBytes(t.scales + o * (t.n / kQ16SplitBlock), t.n / kQ16SplitBlock * sizeof(uint16_t));
}

void dotQ16SplitRows(const float* x, size_t stride, size_t inputs, const Q16SplitTable& t, size_t o, float* out) {
    size_t r = 0;
#ifdef HEARSAY_SIMD_X86
    if (usingQ16SplitKernels()) {
        // Up to 8 inputs a pass (a beam search's 5 in one): the row's elements are made once a pass.
        for (; r + 8 <= inputs; r += 8) dotRowsAvx512<8>(x + r * stride, stride, t, o, out + r);
        switch (inputs - r) {
        case 7: return dotRowsAvx512<7>(x + r * stride, stride, t, o, out + r);
        case 6: return dotRowsAvx512<6>(x + r * stride, stride, t, o, out + r);
        case 5: return dotRowsAvx512<5>(x + r * stride, stride, t, o, out + r);
        case 4: return dotRowsAvx512<4>(x + r * stride, stride, t, o, out + r);
        case 3: return dotRowsAvx512<3>(x + r * stride, stride, t, o, out + r);
        case 2: return dotRowsAvx512<2>(x + r * stride, stride, t, o, out + r);
        case 1: return dotRowsAvx512<1>(x + r * stride, stride, t, o, out + r);
        default: return;
        }
    }
#endif
    for (; r < inputs; ++r) out[r] = dotPortable(x + r * stride, t, o);
}

bool usingQ16SplitKernels() {
    static const bool kSketch = detectSketchKernels();
    return kSketch;
}

bool usingLogitsSketch() {
    static const bool kOn = [] {
        const char* value = std::getenv("HEARSAY_LOGITS_SKETCH");
        return usingQ16SplitKernels() && !(value && std::string_view(value) == "0");
    }();
    return kOn;
}

void prepareSketchInput(const float* x, size_t n, SketchInput& out) {
    const size_t blocks = n / kQ16SplitBlock;
    out.q.resize(n);
    out.scale.resize(blocks);
    out.reach.resize(blocks);
    for (size_t b = 0; b < blocks; ++b) {
        const float* xb = x + b * kQ16SplitBlock;
        float largest = 0.0f, l1 = 0.0f;
        for (size_t j = 0; j < kQ16SplitBlock; ++j) {
            largest = std::max(largest, std::fabs(xb[j]));
            l1 += std::fabs(xb[j]);
        }
        const float scale = largest / 32767.0f;
        const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
        for (size_t j = 0; j < kQ16SplitBlock; ++j) {
            out.q[b * kQ16SplitBlock + j] = static_cast<int16_t>(std::clamp(std::nearbyint(xb[j] * inverse), -32767.0f, 32767.0f));
        }
        out.scale[b] = scale;
        // A quantised element is within scale / 2 of x's, once the rounding of 1 / scale is counted:
        // 2032 · scale is 32 · 127 / 2 of it, with a little room.
        out.reach[b] = 0.5f * l1 + 2048.0f * scale;
    }
}

void sketchQ16Split(const SketchInput& x, const Q16SplitTable& t, size_t first, size_t count, float* approx,
                    float* bound) {
#ifdef HEARSAY_SIMD_X86
    if (usingQ16SplitKernels()) return sketchAvx512(x, t, first, count, approx, bound);
#endif
    sketchPortable(x, t, first, count, approx, bound);
}

} // namespace hearsay::simd
