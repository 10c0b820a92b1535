// ggml's q5_0 and q5_1 blocks on the CPU (see cpu_simd.h): the portable kernels and their AVX-512
// forms (the conversion to float32 also in AVX2), which widen a block's 32 five-bit integers to two vectors (the nibbles, plus 16 where the
// block's high bit is set) and multiply them as the q8_0 kernels do. A q5_0 weight is d·(q − 16), a
// q5_1 weight d·q + m, so a q5_1 block's dot adds m·Σx to d·Σx·q.
#include "core/backend/cpu_simd.h"

#include "core/util/half.h"

#include <cstring>

#include "core/backend/block_gemv_avx512.h"
#include "core/backend/x86_simd.h"

namespace hearsay::simd {
namespace {

// The two formats' layouts: where the high bits and the nibbles start, and whether a minimum follows d.
template <bool WithMin>
struct Q5Layout {
    static constexpr size_t bytes = WithMin ? kQ5_1BlockBytes : kQ5BlockBytes;
    static constexpr size_t high = WithMin ? 4 : 2;
    static constexpr size_t nibbles = high + 4;
    static constexpr int offset = WithMin ? 0 : -16;  // added to q: q5_0 is centred on 16
};

// The block's 32 integers q (+ offset), in element order.
template <bool WithMin>
void q5Values(const uint8_t* block, int* q) {
    using L = Q5Layout<WithMin>;
    uint32_t qh;
    std::memcpy(&qh, block + L::high, sizeof qh);
    const uint8_t* qs = block + L::nibbles;
    for (size_t j = 0; j < 16; ++j) {
        q[j] = int((qs[j] & 0x0F) | (((qh >> j) & 1u) << 4)) + L::offset;
        q[j + 16] = int((qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4)) + L::offset;
    }
}

// Element j (< 32) of a block: q (+ offset) alone, without unpacking the other 31.
template <bool WithMin>
int q5Value(const uint8_t* block, size_t j) {
    using L = Q5Layout<WithMin>;
    uint32_t qh;
    std::memcpy(&qh, block + L::high, sizeof qh);
    const uint8_t byte = block[L::nibbles + j % 16];
    return int((j < 16 ? byte & 0x0F : byte >> 4) | (((qh >> j) & 1u) << 4)) + L::offset;
}

template <bool WithMin>
float dotQ5Portable(const float* a, const uint8_t* w, size_t n) {
    using L = Q5Layout<WithMin>;
    float total = 0.0f;
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* block = w + b * L::bytes;
        int q[kQ5Block];
        q5Values<WithMin>(block, q);
        const float* x = a + b * kQ5Block;
        float s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t j = 0; j < kQ5Block; j += 8) {
            for (size_t k = 0; k < 8; ++k) {
                s[k] += x[j + k] * float(q[j + k]);
                sx[k] += x[j + k];
            }
        }
        const float sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
        total += halfFromBytes(block) * sum;
        if constexpr (WithMin) {
            total += halfFromBytes(block + 2) * (((sx[0] + sx[1]) + (sx[2] + sx[3])) + ((sx[4] + sx[5]) + (sx[6] + sx[7])));
        }
    }
    return total;
}

// d·(q − 16) for q5_0, d·q + m for q5_1: one rounding each, as the model loader computes them.
template <bool WithMin>
void convertQ5Portable(const uint8_t* src, float* dst, size_t n) {
    using L = Q5Layout<WithMin>;
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* block = src + b * L::bytes;
        int q[kQ5Block];
        q5Values<WithMin>(block, q);
        const float d = halfFromBytes(block), m = WithMin ? halfFromBytes(block + 2) : 0.0f;
        for (size_t j = 0; j < kQ5Block; ++j) dst[b * kQ5Block + j] = WithMin ? float(q[j]) * d + m : float(q[j]) * d;
    }
}

// The loader's value of element i: float(q)·d (+ m), as convertQ5Portable computes it.
template <bool WithMin>
float q5Element(const uint8_t* w, size_t i) {
    const uint8_t* block = w + i / kQ5Block * Q5Layout<WithMin>::bytes;
    const float v = float(q5Value<WithMin>(block, i % kQ5Block)) * halfFromBytes(block);
    return WithMin ? v + halfFromBytes(block + 2) : v;
}

#ifdef HEARSAY_SIMD_X86

// Chosen with the other AVX-512 kernels (usingAvx512()), on first use.
bool q5Avx512() {
    static const bool on = usingAvx512();
    return on;
}

// The block's integers q (+ offset) as floats: elements 0-15 in lo, 16-31 in hi.
template <bool WithMin>
__attribute__((target("avx512f"))) inline void q5Floats(const uint8_t* p, __m512& lo, __m512& hi) {
    using L = Q5Layout<WithMin>;
    uint32_t qh;
    std::memcpy(&qh, p + L::high, sizeof qh);
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + L::nibbles));
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m512i sixteen = _mm512_set1_epi32(16);
    __m512i q0 = _mm512_cvtepu8_epi32(_mm_and_si128(qs, nibble));
    __m512i q1 = _mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(qs, 4), nibble));
    if (WithMin) {  // q: the nibble, plus 16 where the high bit is set
        q0 = _mm512_mask_add_epi32(q0, static_cast<__mmask16>(qh & 0xFFFFu), q0, sixteen);
        q1 = _mm512_mask_add_epi32(q1, static_cast<__mmask16>(qh >> 16), q1, sixteen);
    } else {  // q − 16: the nibble where the high bit is set, the nibble minus 16 where it is clear
        q0 = _mm512_mask_sub_epi32(q0, static_cast<__mmask16>(~qh & 0xFFFFu), q0, sixteen);
        q1 = _mm512_mask_sub_epi32(q1, static_cast<__mmask16>(~qh >> 16), q1, sixteen);
    }
    lo = _mm512_cvtepi32_ps(q0);
    hi = _mm512_cvtepi32_ps(q1);
}

__attribute__((target("avx512f,f16c"))) inline __m512 halfFieldAvx512(const uint8_t* p) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return _mm512_set1_ps(_cvtsh_ss(bits));
}

// One block's products with its x (x0, x1), summed, scaled by d (plus m·Σx for q5_1) into the total.
template <bool WithMin>
__attribute__((target("avx512f,f16c"))) inline __m512 q5BlockAvx512(__m512 x0, __m512 x1, const uint8_t* p,
                                                                    __m512 total) {
    __m512 lo, hi;
    q5Floats<WithMin>(p, lo, hi);
    const __m512 s = _mm512_fmadd_ps(x1, hi, _mm512_mul_ps(x0, lo));
    total = _mm512_fmadd_ps(s, halfFieldAvx512(p), total);
    if (WithMin) total = _mm512_fmadd_ps(_mm512_add_ps(x0, x1), halfFieldAvx512(p + 2), total);
    return total;
}

// Two blocks per step with independent accumulators.
template <bool WithMin>
__attribute__((target("avx512f,f16c"))) float dotQ5Avx512(const float* a, const uint8_t* w, size_t n) {
    constexpr size_t bytes = Q5Layout<WithMin>::bytes;
    __m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
    const size_t blocks = n / kQ5Block;
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const float* x = a + b * kQ5Block;
        t0 = q5BlockAvx512<WithMin>(_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16), w + b * bytes, t0);
        t1 = q5BlockAvx512<WithMin>(_mm512_loadu_ps(x + 32), _mm512_loadu_ps(x + 48), w + (b + 1) * bytes, t1);
    }
    if (b < blocks) {
        const float* x = a + b * kQ5Block;
        t0 = q5BlockAvx512<WithMin>(_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16), w + b * bytes, t0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

// The portable values: d·(q − 16), or d·q then + m (no fused multiply-add, as the loader).
template <bool WithMin>
__attribute__((target("avx512f,f16c"))) void convertQ5Avx512(const uint8_t* src, float* dst, size_t n) {
    constexpr size_t bytes = Q5Layout<WithMin>::bytes;
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* p = src + b * bytes;
        __m512 lo, hi;
        q5Floats<WithMin>(p, lo, hi);
        const __m512 d = halfFieldAvx512(p);
        __m512 y0 = _mm512_mul_ps(lo, d), y1 = _mm512_mul_ps(hi, d);
        if (WithMin) {
            const __m512 m = halfFieldAvx512(p + 2);
            y0 = _mm512_add_ps(y0, m);
            y1 = _mm512_add_ps(y1, m);
        }
        _mm512_storeu_ps(dst + b * kQ5Block, y0);
        _mm512_storeu_ps(dst + b * kQ5Block + 16, y1);
    }
}

// The AVX2 form of convertQ5Avx512, 8 elements at a time: the nibbles widened to int32, 16 added
// (q5_1) or subtracted (q5_0) lane by lane as the high bits say; the same products and sums.
template <bool WithMin>
__attribute__((target("avx2,f16c"))) void convertQ5Avx2(const uint8_t* src, float* dst, size_t n) {
    using L = Q5Layout<WithMin>;
    const __m256i laneBit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i nibble = _mm256_set1_epi32(0x0F);
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* p = src + b * L::bytes;
        uint32_t qh;
        std::memcpy(&qh, p + L::high, sizeof qh);
        uint16_t bits;
        std::memcpy(&bits, p, sizeof bits);
        const __m256 d = _mm256_set1_ps(_cvtsh_ss(bits));
        __m256 m = _mm256_setzero_ps();
        if (WithMin) {
            std::memcpy(&bits, p + 2, sizeof bits);
            m = _mm256_set1_ps(_cvtsh_ss(bits));
        }
        for (size_t k = 0; k < 4; ++k) {  // elements 8k .. 8k + 7: nibbles of bytes 8(k % 2) .., low or high
            const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + L::nibbles + 8 * (k % 2)));
            __m256i q = _mm256_cvtepu8_epi32(bytes);
            if (k >= 2) q = _mm256_srli_epi32(q, 4);
            q = _mm256_and_si256(q, nibble);
            const __m256i set = _mm256_cmpeq_epi32(
                _mm256_and_si256(_mm256_set1_epi32(int((qh >> (8 * k)) & 0xFFu)), laneBit), laneBit);
            if (WithMin) q = _mm256_add_epi32(q, _mm256_and_si256(set, _mm256_set1_epi32(16)));
            else q = _mm256_sub_epi32(q, _mm256_andnot_si256(set, _mm256_set1_epi32(16)));
            __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(q), d);
            if (WithMin) y = _mm256_add_ps(y, m);
            _mm256_storeu_ps(dst + b * kQ5Block + 8 * k, y);
        }
    }
}

bool q5Avx2() {
    static const bool on = usingAvx2() && usingF16c();
    return on;
}

#endif

template <bool WithMin>
float dotQ5Any(const float* a, const uint8_t* w, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (q5Avx512()) return dotQ5Avx512<WithMin>(a, w, n);
#endif
    return dotQ5Portable<WithMin>(a, w, n);
}

template <bool WithMin>
void gemvQ5Any(const float* x, const uint8_t* w, size_t n, size_t rows, float* y) {
    constexpr size_t bytes = Q5Layout<WithMin>::bytes;
#ifdef HEARSAY_SIMD_X86
    if (q5Avx512()) return gemvBlocksAvx512<q5BlockAvx512<WithMin>, bytes>(x, w, n, rows, y);
#endif
    for (size_t o = 0; o < rows; ++o) y[o] = dotQ5Portable<WithMin>(x, w + o * (n / kQ5Block * bytes), n);
}

template <bool WithMin>
void convertQ5Any(const uint8_t* src, float* dst, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (q5Avx512()) return convertQ5Avx512<WithMin>(src, dst, n);
    if (q5Avx2()) return convertQ5Avx2<WithMin>(src, dst, n);
#endif
    convertQ5Portable<WithMin>(src, dst, n);
}

} // namespace

float dotQ5(const float* a, const uint8_t* w, size_t n) { return dotQ5Any<false>(a, w, n); }
void gemvQ5(const float* x, const uint8_t* w, size_t n, size_t rows, float* y) { gemvQ5Any<false>(x, w, n, rows, y); }
void convertQ5(const uint8_t* src, float* dst, size_t n) { convertQ5Any<false>(src, dst, n); }
float dotQ5_1(const float* a, const uint8_t* w, size_t n) { return dotQ5Any<true>(a, w, n); }
void gemvQ5_1(const float* x, const uint8_t* w, size_t n, size_t rows, float* y) { gemvQ5Any<true>(x, w, n, rows, y); }
void convertQ5_1(const uint8_t* src, float* dst, size_t n) { convertQ5Any<true>(src, dst, n); }
float elementQ5(const uint8_t* w, size_t i) { return q5Element<false>(w, i); }
float elementQ5_1(const uint8_t* w, size_t i) { return q5Element<true>(w, i); }
void q5BlockIntegers(const uint8_t* block, bool withMin, int* q) {
    if (withMin) q5Values<true>(block, q);
    else q5Values<false>(block, q);
}

} // namespace hearsay::simd
