// The integer products of block weights with one vector (cpu_int8.h): the quantiser, the AVX-512
// VNNI kernels, the AVX2 ones and their portable twin.
//
// vpdpbusd multiplies unsigned bytes by signed bytes and adds each group of four products into an
// int32 lane. The weights go in as the unsigned side and x's integers as the signed side:
//   q5_0 and q5_1: the five-bit q (0..31) as stored; q5_0's weight is d·(q − 16), so its block sum
//                  is Σq·xq − 16·Σxq;
//   q8_0:          q + 128 (the sign bit flipped), so the block sum is Σ(q + 128)·xq − 128·Σxq.
// The −16·Σxq or −128·Σxq of each lane is x's group sums shifted, loaded as the accumulator's start,
// so every sum comes out exact in int32 (at most 32·255·127 in magnitude).
#include "core/backend/cpu_int8.h"

#include "core/backend/cpu_simd.h"
#include "core/backend/row_prefetch.h"
#include "core/backend/x86_simd.h"
#include "core/util/half.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace hearsay::simd {
namespace {

constexpr size_t kInt8Block = 32;

// Which integer kernels run: none (the float kernels), AVX2's (vpmaddubsw, 256 bits, one block a
// step) or AVX-512 VNNI's (vpdpbusd, two blocks a step). Chosen on first use (below).
enum class Int8Kernels { None, Avx2, Vnni };
Int8Kernels int8Kernels();

// The three formats: bytes per block, where the integers start, what is subtracted from each
// integer on the VNNI path (through x's group sums, shifted left by offsetShift), whether a minimum
// follows d, and the block's integers as the weight uses them (q8_0: q; q5_0: q − 16; q5_1: q).
struct Q8Int8Format {
    static constexpr size_t bytes = kQ8BlockBytes;
    static constexpr int offsetShift = 7; // 128: the sign bit flipped
    static constexpr bool withMin = false;
    static constexpr bool signedBytes = true; // AVX2: the integers as signed bytes (q)
    static void integers(const uint8_t* p, int* q) {
        for (size_t j = 0; j < kInt8Block; ++j)
            q[j] = int(static_cast<int8_t>(p[2 + j]));
    }
};

template <bool WithMin> struct Q5Int8Format {
    static constexpr size_t bytes = WithMin ? kQ5_1BlockBytes : kQ5BlockBytes;
    static constexpr size_t high = WithMin ? 4 : 2;
    static constexpr size_t nibbles = high + 4;
    static constexpr int offsetShift = WithMin ? -1 : 4; // q5_0: 16; q5_1: none
    static constexpr bool withMin = WithMin;
    static constexpr bool signedBytes = !WithMin; // AVX2: q5_0 as signed bytes (q − 16), q5_1 unsigned (q)
    static void integers(const uint8_t* p, int* q) { q5BlockIntegers(p, WithMin, q); }
};

void quantizeInt8Portable(const float* x, size_t n, Int8Vector& out) {
    for (size_t b = 0; b < n / kInt8Block; ++b) {
        const float* v = x + b * kInt8Block;
        float amax = 0.0f, sum = 0.0f;
        for (size_t j = 0; j < kInt8Block; ++j) {
            amax = std::max(amax, std::abs(v[j]));
            sum += v[j];
        }
        const float inverse = amax > 0.0f ? 127.0f / amax : 0.0f;
        out.scale[b] = amax / 127.0f;
        out.sum[b] = sum;
        int8_t* q = out.q.data() + b * kInt8Block;
        for (size_t j = 0; j < kInt8Block; ++j)
            q[j] = static_cast<int8_t>(std::nearbyint(v[j] * inverse));
        for (size_t g = 0; g < kInt8Block / 4; ++g) {
            out.groupSum[b * 8 + g] = q[4 * g] + q[4 * g + 1] + q[4 * g + 2] + q[4 * g + 3];
        }
    }
}

template <class F> void gemvInt8Portable(const Int8Vector& x, const uint8_t* w, size_t rows, float* y) {
    const size_t blocks = x.n / kInt8Block, rowBytes = blocks * F::bytes;
    for (size_t o = 0; o < rows; ++o) {
        const uint8_t* row = w + o * rowBytes;
        prefetchRowsAhead(row, rowBytes, w + rows * rowBytes);
        float total = 0.0f;
        for (size_t b = 0; b < blocks; ++b) {
            const uint8_t* p = row + b * F::bytes;
            int q[kInt8Block];
            F::integers(p, q);
            const int8_t* xq = x.q.data() + b * kInt8Block;
            int32_t sum = 0;
            for (size_t j = 0; j < kInt8Block; ++j)
                sum += q[j] * int32_t(xq[j]);
            total += float(sum) * x.scale[b] * halfFromBytes(p);
            if constexpr (F::withMin) total += halfFromBytes(p + 2) * x.sum[b];
        }
        y[o] = total;
    }
}

#ifdef HEARSAY_SIMD_X86

#define HEARSAY_INT8_TARGET "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c"

Int8Kernels detectInt8Kernels() {
    const char* v = std::getenv("HEARSAY_INT8_DOTS");
    if (v && std::string_view(v) == "0") return Int8Kernels::None;
    __builtin_cpu_init();
    const bool avx2Asked = v && std::string_view(v) == "avx2";
    if (!avx2Asked && usingAvx512() && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vnni")) {
        return Int8Kernels::Vnni;
    }
    if (usingAvx2() && usingF16c() && __builtin_cpu_supports("fma")) return Int8Kernels::Avx2;
    return Int8Kernels::None;
}

__attribute__((target(HEARSAY_INT8_TARGET))) void quantizeInt8Avx512(const float* x, size_t n, Int8Vector& out) {
    const __m256i ones = _mm256_set1_epi8(1);
    for (size_t b = 0; b < n / kInt8Block; ++b) {
        const __m512 x0 = _mm512_loadu_ps(x + b * kInt8Block), x1 = _mm512_loadu_ps(x + b * kInt8Block + 16);
        const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(x0), _mm512_abs_ps(x1)));
        const float inverse = amax > 0.0f ? 127.0f / amax : 0.0f;
        out.scale[b] = amax / 127.0f;
        out.sum[b] = _mm512_reduce_add_ps(_mm512_add_ps(x0, x1));
        const __m512 s = _mm512_set1_ps(inverse);
        // Rounded to nearest even (the default rounding mode, as nearbyint in the portable loop).
        const __m128i q0 = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(x0, s)));
        const __m128i q1 = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(x1, s)));
        const __m256i q = _mm256_set_m128i(q1, q0);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.q.data() + b * kInt8Block), q);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.groupSum.data() + b * 8),
                            _mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, q));
    }
}

// The kernels work on pairs of blocks, 512 bits at a time: block b in the low 256 bits, b + 1 in
// the high ones, each block's 32 integers in element order, and its scales spread over its eight lanes.

// Two floats (a, b) spread to [a × 8, b × 8].
__attribute__((target(HEARSAY_INT8_TARGET))) inline __m512 int8Spread(__m128 ab) {
    return _mm512_permutexvar_ps(_mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
                                 _mm512_castps128_ps512(ab));
}

__attribute__((target(HEARSAY_INT8_TARGET))) inline __m512 int8Spread(const float* ab) {
    return int8Spread(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(ab))));
}

// The halves at p and p + bytes (two blocks' d, or m) spread as int8Spread.
__attribute__((target(HEARSAY_INT8_TARGET))) inline __m512 int8HalfPair(const uint8_t* p, size_t bytes) {
    uint16_t a, b;
    std::memcpy(&a, p, sizeof a);
    std::memcpy(&b, p + bytes, sizeof b);
    return int8Spread(_mm_cvtph_ps(_mm_cvtsi32_si128(int(uint32_t(a) | uint32_t(b) << 16))));
}

// A pair of weight blocks: the integers as the unsigned bytes vpdpbusd takes, d, and m (q5_1).
struct Int8WeightPair {
    __m512i bytes;
    __m512 d, m;
};

__attribute__((target(HEARSAY_INT8_TARGET))) inline __m512i int8Bytes(Q8Int8Format, const uint8_t* p) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ8BlockBytes + 2));
    return _mm512_xor_si512(_mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1), _mm512_set1_epi8(char(0x80)));
}

// Each block's 16 bytes of nibbles in both 128-bit halves of its 256, the upper half shifted down by
// 4 (elements 0-15 are the low nibbles, 16-31 the high ones), then 16 added where the high bit is set.
template <bool WithMin>
__attribute__((target(HEARSAY_INT8_TARGET))) inline __m512i int8Bytes(Q5Int8Format<WithMin>, const uint8_t* p) {
    using F = Q5Int8Format<WithMin>;
    const __m512i first = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + F::nibbles)));
    const __m512i both = _mm512_mask_broadcast_i32x4(
        first, 0xFF00, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + F::bytes + F::nibbles)));
    const __m512i shifts =
        _mm512_set_epi64(0x0004000400040004, 0x0004000400040004, 0, 0, 0x0004000400040004, 0x0004000400040004, 0, 0);
    const __m512i q = _mm512_and_si512(_mm512_srlv_epi16(both, shifts), _mm512_set1_epi8(0x0F));
    uint32_t qa, qb;
    std::memcpy(&qa, p + F::high, sizeof qa);
    std::memcpy(&qb, p + F::bytes + F::high, sizeof qb);
    return _mm512_mask_add_epi8(q, _cvtu64_mask64(uint64_t(qa) | uint64_t(qb) << 32), q, _mm512_set1_epi8(16));
}

template <class F> __attribute__((target(HEARSAY_INT8_TARGET))) inline Int8WeightPair int8WeightPair(const uint8_t* p) {
    return {int8Bytes(F{}, p), int8HalfPair(p, F::bytes),
            F::withMin ? int8HalfPair(p + 2, F::bytes) : _mm512_setzero_ps()};
}

// A pair of x's blocks: the integers, the accumulator's start (−(the group sums << the format's
// shift), or zero), dx, and (q5_1) the block sums in the first lane of each half, zeros elsewhere.
struct Int8InputPair {
    __m512i q, start;
    __m512 scale, sums;
};

template <class F>
__attribute__((target(HEARSAY_INT8_TARGET))) inline Int8InputPair int8InputPair(const int8_t* q, const int32_t* groups,
                                                                                const float* dx, const float* xs) {
    Int8InputPair x{_mm512_loadu_si512(q), _mm512_setzero_si512(), int8Spread(dx), _mm512_setzero_ps()};
    if constexpr (F::offsetShift >= 0) {
        x.start =
            _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(_mm512_loadu_si512(groups), F::offsetShift));
    }
    if constexpr (F::withMin) x.sums = _mm512_maskz_mov_ps(0x0101, int8Spread(xs));
    return x;
}

template <class F>
__attribute__((target(HEARSAY_INT8_TARGET))) inline Int8InputPair int8InputPair(const Int8Vector& x, size_t b) {
    return int8InputPair<F>(x.q.data() + b * kInt8Block, x.groupSum.data() + b * 8, x.scale.data() + b,
                            x.sum.data() + b);
}

// total + the pair's exact integer sums scaled by dx and d (+ m·Σx for q5_1), lane by lane.
template <class F>
__attribute__((target(HEARSAY_INT8_TARGET))) inline __m512 int8Accumulate(const Int8WeightPair& w,
                                                                          const Int8InputPair& x, __m512 total) {
    const __m512i sums = _mm512_dpbusd_epi32(x.start, w.bytes, x.q);
    total = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(sums), x.scale), w.d, total);
    if constexpr (F::withMin) total = _mm512_fmadd_ps(w.m, x.sums, total);
    return total;
}

// A row's last block when their count is odd: a pair of it and a block of zeros (d = 0; x's
// integers, sums and scale 0), copied out so that nothing past the row is read.
template <class F>
__attribute__((target(HEARSAY_INT8_TARGET))) inline float int8LastBlock(const Int8Vector& x, const uint8_t* row) {
    const size_t blocks = x.n / kInt8Block;
    if (blocks % 2 == 0) return 0.0f;
    const size_t b = blocks - 1;
    uint8_t weights[2 * F::bytes] = {};
    int8_t q[2 * kInt8Block] = {};
    int32_t groups[16] = {};
    const float dx[2] = {x.scale[b], 0.0f}, xs[2] = {x.sum[b], 0.0f};
    std::memcpy(weights, row + b * F::bytes, F::bytes);
    std::memcpy(q, x.q.data() + b * kInt8Block, kInt8Block);
    std::memcpy(groups, x.groupSum.data() + b * 8, 8 * sizeof(int32_t));
    return _mm512_reduce_add_ps(
        int8Accumulate<F>(int8WeightPair<F>(weights), int8InputPair<F>(q, groups, dx, xs), _mm512_setzero_ps()));
}

// One row of blocks times R vectors: each pair of the row's blocks unpacked once for all of them.
template <class F, size_t R>
__attribute__((target(HEARSAY_INT8_TARGET))) void dotsInt8Vnni(const Int8Vector* xs, const uint8_t* row, float* out) {
    const size_t pairs = xs[0].n / kInt8Block / 2;
    __m512 a[R];
    for (size_t i = 0; i < R; ++i)
        a[i] = _mm512_setzero_ps();
    for (size_t k = 0; k < pairs; ++k) {
        const Int8WeightPair w = int8WeightPair<F>(row + 2 * k * F::bytes);
        for (size_t i = 0; i < R; ++i)
            a[i] = int8Accumulate<F>(w, int8InputPair<F>(xs[i], 2 * k), a[i]);
    }
    for (size_t i = 0; i < R; ++i)
        out[i] = _mm512_reduce_add_ps(a[i]) + int8LastBlock<F>(xs[i], row);
}

// Rows of blocks times x, four rows per iteration sharing x's loads, each row's bytes prefetched as
// they are read (groupPrefetchDistance ahead); the last rows one at a time.
template <class F>
__attribute__((target(HEARSAY_INT8_TARGET))) void gemvInt8Vnni(const Int8Vector& x, const uint8_t* w, size_t rows,
                                                               float* y) {
    const size_t pairs = x.n / kInt8Block / 2, rowBytes = x.n / kInt8Block * F::bytes;
    const size_t groupBytes = 4 * rowBytes, ahead = groupPrefetchDistance(groupBytes);
    const uint8_t* end = w + rows * rowBytes;
    size_t o = 0;
    for (; o + 4 <= rows; o += 4) {
        const uint8_t* r = w + o * rowBytes;
        const bool prefetch = size_t(end - r) >= ahead + groupBytes;
        __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        for (size_t k = 0; k < pairs; ++k) {
            const Int8InputPair in = int8InputPair<F>(x, 2 * k);
            const uint8_t* p = r + 2 * k * F::bytes;
            if (prefetch) {
                // The pair's first line and, where a pair is longer than a line (q8_0's 68 bytes), its
                // last: consecutive pairs then leave no line out.
                prefetchFourRows(p, rowBytes, ahead);
                if constexpr (2 * F::bytes > 64) prefetchFourRows(p + 2 * F::bytes - 1, rowBytes, ahead);
            }
            for (size_t j = 0; j < 4; ++j)
                a[j] = int8Accumulate<F>(int8WeightPair<F>(p + j * rowBytes), in, a[j]);
        }
        for (size_t j = 0; j < 4; ++j)
            y[o + j] = _mm512_reduce_add_ps(a[j]) + int8LastBlock<F>(x, r + j * rowBytes);
    }
    for (; o < rows; ++o)
        dotsInt8Vnni<F, 1>(&x, w + o * rowBytes, y + o);
}


// The AVX2 kernels (CPUs without AVX-512 VNNI: AMD before Zen 4, Intel's cores without AVX-512).
// vpmaddubsw multiplies unsigned bytes by signed bytes and adds adjacent pairs into int16 with
// saturation, then vpmaddwd with ones adds pairs of those into int32 (groups of four, as vpdpbusd).
// No pair may pass 32767, so the weights go in as whisper.cpp's do: a format whose integers are
// signed (q8_0's q, q5_0's q − 16) as |q| on the unsigned side and x's integers with q's sign on the
// signed one (|q| ≤ 128, |xq| ≤ 127: a pair at most 32512); q5_1's q (0..31) as it is. Every block
// sum is exact in int32, as on the VNNI path; one block per 256-bit step, its d·dx applied in float.

#define HEARSAY_INT8_AVX2_TARGET "avx2,fma,f16c"

__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) void quantizeInt8Avx2(const float* x, size_t n, Int8Vector& out) {
    const __m256 signBits = _mm256_set1_ps(-0.0f);
    const __m256i ones8 = _mm256_set1_epi8(1);
    const __m256i ones16 = _mm256_set1_epi16(1);
    // packs interleaves the 128-bit lanes: this puts the 32 integers back in element order.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (size_t b = 0; b < n / kInt8Block; ++b) {
        const float* v = x + b * kInt8Block;
        const __m256 x0 = _mm256_loadu_ps(v), x1 = _mm256_loadu_ps(v + 8);
        const __m256 x2 = _mm256_loadu_ps(v + 16), x3 = _mm256_loadu_ps(v + 24);
        const __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(signBits, x0), _mm256_andnot_ps(signBits, x1)),
                                       _mm256_max_ps(_mm256_andnot_ps(signBits, x2), _mm256_andnot_ps(signBits, x3)));
        const float amax = reduceMax8(m);
        const float inverse = amax > 0.0f ? 127.0f / amax : 0.0f;
        out.scale[b] = amax / 127.0f;
        out.sum[b] = reduceAdd8(_mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)));
        const __m256 s = _mm256_set1_ps(inverse);
        // Rounded to nearest even (the default rounding mode, as nearbyint in the portable loop);
        // every value lies in [-127, 127], so the packs saturate nothing.
        const __m256i q0 = _mm256_cvtps_epi32(_mm256_mul_ps(x0, s)), q1 = _mm256_cvtps_epi32(_mm256_mul_ps(x1, s));
        const __m256i q2 = _mm256_cvtps_epi32(_mm256_mul_ps(x2, s)), q3 = _mm256_cvtps_epi32(_mm256_mul_ps(x3, s));
        const __m256i q = _mm256_permutevar8x32_epi32(
            _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3)), order);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.q.data() + b * kInt8Block), q);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.groupSum.data() + b * 8),
                            _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, q), ones16));
    }
}

__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) inline float int8HalfAvx2(const uint8_t* p) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return _cvtsh_ss(bits);
}

// One weight block: its 32 integers as bytes in element order (signed or not, as F::signedBytes),
// d, and m (q5_1).
struct Int8BlockAvx2 {
    __m256i bytes;
    float d, m;
};

__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) inline __m256i int8BytesAvx2(Q8Int8Format, const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2));
}

// The nibbles (elements 0-15 low, 16-31 high) and the high bits: q5_1's q = nibble + 16·bit; q5_0's
// q − 16 = the nibble with its upper four bits set where the high bit is clear (nibble − 16).
template <bool WithMin>
__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) inline __m256i int8BytesAvx2(Q5Int8Format<WithMin>,
                                                                              const uint8_t* p) {
    using F = Q5Int8Format<WithMin>;
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + F::nibbles));
    const __m256i nibbles =
        _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0x0F));
    uint32_t qh;
    std::memcpy(&qh, p + F::high, sizeof qh);
    const __m256i high = bitBytes(qh);
    if constexpr (WithMin) return _mm256_or_si256(nibbles, _mm256_and_si256(high, _mm256_set1_epi8(0x10)));
    return _mm256_or_si256(nibbles, _mm256_andnot_si256(high, _mm256_set1_epi8(char(0xF0))));
}

template <class F> __attribute__((target(HEARSAY_INT8_AVX2_TARGET))) inline Int8BlockAvx2 int8BlockAvx2(const uint8_t* p) {
    return {int8BytesAvx2(F{}, p), int8HalfAvx2(p), F::withMin ? int8HalfAvx2(p + 2) : 0.0f};
}

// total + the block's exact integer sums (eight lanes of four products) scaled by d·dx; the q5_1
// minimum's term m·Σx goes to `mins`.
template <class F>
__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) inline __m256 int8AccumulateAvx2(const Int8BlockAvx2& w, __m256i xq,
                                                                                  float dx, float xs, float& mins,
                                                                                  __m256 total) {
    __m256i pairs;
    if constexpr (F::signedBytes) {
        pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(w.bytes, w.bytes), _mm256_sign_epi8(xq, w.bytes));
    } else {
        pairs = _mm256_maddubs_epi16(w.bytes, xq);
    }
    const __m256i sums = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
    if constexpr (F::withMin) mins += w.m * xs;
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), _mm256_set1_ps(w.d * dx), total);
}

__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) inline __m256i int8InputAvx2(const Int8Vector& x, size_t b) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q.data() + b * kInt8Block));
}

// One row of blocks times R vectors: each of the row's blocks unpacked once for all of them.
template <class F, size_t R>
__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) void dotsInt8Avx2(const Int8Vector* xs, const uint8_t* row, float* out) {
    const size_t blocks = xs[0].n / kInt8Block;
    __m256 a[R];
    float mins[R];
    for (size_t i = 0; i < R; ++i) {
        a[i] = _mm256_setzero_ps();
        mins[i] = 0.0f;
    }
    for (size_t b = 0; b < blocks; ++b) {
        const Int8BlockAvx2 w = int8BlockAvx2<F>(row + b * F::bytes);
        for (size_t i = 0; i < R; ++i)
            a[i] = int8AccumulateAvx2<F>(w, int8InputAvx2(xs[i], b), xs[i].scale[b], xs[i].sum[b], mins[i], a[i]);
    }
    for (size_t i = 0; i < R; ++i)
        out[i] = reduceAdd8(a[i]) + mins[i];
}

// Rows of blocks times x, four rows per iteration sharing x's loads, each row's blocks prefetched
// as they are read (groupPrefetchDistance ahead; a block is shorter than a line); the last rows one
// at a time.
template <class F>
__attribute__((target(HEARSAY_INT8_AVX2_TARGET))) void gemvInt8Avx2(const Int8Vector& x, const uint8_t* w, size_t rows,
                                                                   float* y) {
    const size_t blocks = x.n / kInt8Block, rowBytes = blocks * F::bytes;
    const size_t groupBytes = 4 * rowBytes, ahead = groupPrefetchDistance(groupBytes);
    const uint8_t* end = w + rows * rowBytes;
    size_t o = 0;
    for (; o + 4 <= rows; o += 4) {
        const uint8_t* r = w + o * rowBytes;
        const bool prefetch = size_t(end - r) >= ahead + groupBytes;
        __m256 a[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        float mins[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (size_t b = 0; b < blocks; ++b) {
            const __m256i xq = int8InputAvx2(x, b);
            const uint8_t* p = r + b * F::bytes;
            if (prefetch) prefetchFourRows(p, rowBytes, ahead);
            for (size_t j = 0; j < 4; ++j) {
                a[j] = int8AccumulateAvx2<F>(int8BlockAvx2<F>(p + j * rowBytes), xq, x.scale[b], x.sum[b], mins[j],
                                             a[j]);
            }
        }
        for (size_t j = 0; j < 4; ++j)
            y[o + j] = reduceAdd8(a[j]) + mins[j];
    }
    for (; o < rows; ++o)
        dotsInt8Avx2<F, 1>(&x, w + o * rowBytes, y + o);
}

// R vectors at a time through Kernel<F, R> (4, then the 3, 2 or 1 left).
template <class F, template <class, size_t> class Kernel>
void dotsInt8Rows(const Int8Vector* xs, size_t count, const uint8_t* row, float* out) {
    size_t i = 0;
    for (; i + 4 <= count; i += 4)
        Kernel<F, 4>::run(xs + i, row, out + i);
    switch (count - i) {
    case 3:
        return Kernel<F, 3>::run(xs + i, row, out + i);
    case 2:
        return Kernel<F, 2>::run(xs + i, row, out + i);
    case 1:
        return Kernel<F, 1>::run(xs + i, row, out + i);
    default:
        return;
    }
}

template <class F, size_t R> struct DotsVnni {
    static void run(const Int8Vector* xs, const uint8_t* row, float* out) { dotsInt8Vnni<F, R>(xs, row, out); }
};
template <class F, size_t R> struct DotsAvx2 {
    static void run(const Int8Vector* xs, const uint8_t* row, float* out) { dotsInt8Avx2<F, R>(xs, row, out); }
};

template <class F> void dotsInt8Any(const Int8Vector* xs, size_t count, const uint8_t* row, float* out) {
    switch (int8Kernels()) {
    case Int8Kernels::Vnni:
        return dotsInt8Rows<F, DotsVnni>(xs, count, row, out);
    case Int8Kernels::Avx2:
        return dotsInt8Rows<F, DotsAvx2>(xs, count, row, out);
    case Int8Kernels::None:
        break;
    }
    for (size_t i = 0; i < count; ++i)
        gemvInt8Portable<F>(xs[i], row, 1, out + i);
}

#else
Int8Kernels detectInt8Kernels() {
    return Int8Kernels::None;
}

template <class F> void dotsInt8Any(const Int8Vector* xs, size_t count, const uint8_t* row, float* out) {
    for (size_t i = 0; i < count; ++i)
        gemvInt8Portable<F>(xs[i], row, 1, out + i);
}
#endif

// Chosen on first use, after the other kernels' choice (usingAvx512(), usingAvx2()) is made.
Int8Kernels int8Kernels() {
    static const Int8Kernels kernels = detectInt8Kernels();
    return kernels;
}

template <class F> void gemvInt8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y) {
#ifdef HEARSAY_SIMD_X86
    if (int8Kernels() == Int8Kernels::Vnni) return gemvInt8Vnni<F>(x, w, rows, y);
    if (int8Kernels() == Int8Kernels::Avx2) return gemvInt8Avx2<F>(x, w, rows, y);
#endif
    gemvInt8Portable<F>(x, w, rows, y);
}

} // namespace

bool usingInt8Dots() {
    return int8Kernels() != Int8Kernels::None;
}

bool usingVnniDots() {
    return int8Kernels() == Int8Kernels::Vnni;
}

bool usingAvx2Dots() {
    return int8Kernels() == Int8Kernels::Avx2;
}

const char* int8DotsKernels() {
    switch (int8Kernels()) {
    case Int8Kernels::Vnni:
        return "avx512-vnni";
    case Int8Kernels::Avx2:
        return "avx2";
    case Int8Kernels::None:
        break;
    }
    return "none";
}

void quantizeInt8(const float* x, size_t n, Int8Vector& out) {
    out.n = n;
    if (out.q.size() < n) {
        out.q.resize(n);
        out.scale.resize(n / kInt8Block);
        out.sum.resize(n / kInt8Block);
        out.groupSum.resize(n / 4);
    }
#ifdef HEARSAY_SIMD_X86
    if (int8Kernels() == Int8Kernels::Vnni) return quantizeInt8Avx512(x, n, out);
    if (int8Kernels() == Int8Kernels::Avx2) return quantizeInt8Avx2(x, n, out);
#endif
    quantizeInt8Portable(x, n, out);
}

void gemvQ8Int8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y) {
    gemvInt8<Q8Int8Format>(x, w, rows, y);
}
void gemvQ5Int8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y) {
    gemvInt8<Q5Int8Format<false>>(x, w, rows, y);
}
void gemvQ5_1Int8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y) {
    gemvInt8<Q5Int8Format<true>>(x, w, rows, y);
}
void dotsQ8Int8(const Int8Vector* xs, size_t count, const uint8_t* row, float* out) {
    dotsInt8Any<Q8Int8Format>(xs, count, row, out);
}
void dotsQ5Int8(const Int8Vector* xs, size_t count, const uint8_t* row, float* out) {
    dotsInt8Any<Q5Int8Format<false>>(xs, count, row, out);
}
void dotsQ5_1Int8(const Int8Vector* xs, size_t count, const uint8_t* row, float* out) {
    dotsInt8Any<Q5Int8Format<true>>(xs, count, row, out);
}

} // namespace hearsay::simd
