// ggml's q5_0 blocks on the CPU (see cpu_simd.h): the portable kernels and their AVX-512 forms,
// which widen a block's 32 five-bit integers to two vectors of int32 (the nibbles, then 16 taken
// off where the block's high bit is clear) and multiply them as the q8_0 kernels do.
#include "core/backend/cpu_simd.h"

#include "core/util/half.h"

#include <cstring>

#include "core/backend/block_gemv_avx512.h"
#include "core/backend/x86_simd.h"

namespace hearsay::simd {
namespace {

float q5BlockScale(const uint8_t* block) {
    uint16_t bits;
    std::memcpy(&bits, block, sizeof bits);
    return halfToFloat(bits);
}

// The block's 32 integers q - 16, in element order.
void q5BlockValues(const uint8_t* block, int* q) {
    uint32_t qh;
    std::memcpy(&qh, block + 2, sizeof qh);
    const uint8_t* qs = block + 6;
    for (size_t j = 0; j < 16; ++j) {
        q[j] = int((qs[j] & 0x0F) | (((qh >> j) & 1u) << 4)) - 16;
        q[j + 16] = int((qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4)) - 16;
    }
}

float dotQ5Portable(const float* a, const uint8_t* w, size_t n) {
    float total = 0.0f;
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* block = w + b * kQ5BlockBytes;
        int q[kQ5Block];
        q5BlockValues(block, q);
        const float* x = a + b * kQ5Block;
        float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t j = 0; j < kQ5Block; j += 8) {
            for (size_t k = 0; k < 8; ++k) s[k] += x[j + k] * float(q[j + k]);
        }
        total += q5BlockScale(block) * (((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])));
    }
    return total;
}

void convertQ5Portable(const uint8_t* src, float* dst, size_t n) {
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* block = src + b * kQ5BlockBytes;
        int q[kQ5Block];
        q5BlockValues(block, q);
        const float d = q5BlockScale(block);
        for (size_t j = 0; j < kQ5Block; ++j) dst[b * kQ5Block + j] = d * float(q[j]);
    }
}

#ifdef HEARSAY_SIMD_X86

// Chosen with the other AVX-512 kernels (usingAvx512()), on first use.
bool q5Avx512() {
    static const bool on = usingAvx512();
    return on;
}

// The block's integers q - 16 as floats: elements 0-15 in lo, 16-31 in hi.
__attribute__((target("avx512f"))) inline void q5BlockFloats(const uint8_t* p, __m512& lo, __m512& hi) {
    uint32_t qh;
    std::memcpy(&qh, p + 2, sizeof qh);
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 6));
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m512i sixteen = _mm512_set1_epi32(16);
    __m512i q0 = _mm512_cvtepu8_epi32(_mm_and_si128(qs, nibble));
    __m512i q1 = _mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(qs, 4), nibble));
    // q - 16 is the nibble where the high bit is set, the nibble minus 16 where it is clear.
    q0 = _mm512_mask_sub_epi32(q0, static_cast<__mmask16>(~qh & 0xFFFFu), q0, sixteen);
    q1 = _mm512_mask_sub_epi32(q1, static_cast<__mmask16>(~qh >> 16), q1, sixteen);
    lo = _mm512_cvtepi32_ps(q0);
    hi = _mm512_cvtepi32_ps(q1);
}

__attribute__((target("avx512f,f16c"))) inline __m512 q5BlockScaleAvx512(const uint8_t* p) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return _mm512_set1_ps(_cvtsh_ss(bits));
}

// One block's products with its x (x0, x1), summed, scaled by d into the total.
__attribute__((target("avx512f,f16c"))) inline __m512 q5BlockAvx512(__m512 x0, __m512 x1, const uint8_t* p,
                                                                    __m512 total) {
    __m512 lo, hi;
    q5BlockFloats(p, lo, hi);
    const __m512 s = _mm512_fmadd_ps(x1, hi, _mm512_mul_ps(x0, lo));
    return _mm512_fmadd_ps(s, q5BlockScaleAvx512(p), total);
}

// Two blocks per step with independent accumulators.
__attribute__((target("avx512f,f16c"))) float dotQ5Avx512(const float* a, const uint8_t* w, size_t n) {
    __m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
    const size_t blocks = n / kQ5Block;
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const float* x = a + b * kQ5Block;
        t0 = q5BlockAvx512(_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16), w + b * kQ5BlockBytes, t0);
        t1 = q5BlockAvx512(_mm512_loadu_ps(x + 32), _mm512_loadu_ps(x + 48), w + (b + 1) * kQ5BlockBytes, t1);
    }
    if (b < blocks) {
        const float* x = a + b * kQ5Block;
        t0 = q5BlockAvx512(_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16), w + b * kQ5BlockBytes, t0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

// d·(q - 16), rounded once as the portable product is: the same floats.
__attribute__((target("avx512f,f16c"))) void convertQ5Avx512(const uint8_t* src, float* dst, size_t n) {
    for (size_t b = 0; b < n / kQ5Block; ++b) {
        const uint8_t* p = src + b * kQ5BlockBytes;
        __m512 lo, hi;
        q5BlockFloats(p, lo, hi);
        const __m512 d = q5BlockScaleAvx512(p);
        _mm512_storeu_ps(dst + b * kQ5Block, _mm512_mul_ps(d, lo));
        _mm512_storeu_ps(dst + b * kQ5Block + 16, _mm512_mul_ps(d, hi));
    }
}

#endif

} // namespace

float dotQ5(const float* a, const uint8_t* w, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (q5Avx512()) return dotQ5Avx512(a, w, n);
#endif
    return dotQ5Portable(a, w, n);
}

void gemvQ5(const float* x, const uint8_t* w, size_t n, size_t rows, float* y) {
#ifdef HEARSAY_SIMD_X86
    if (q5Avx512()) return gemvBlocksAvx512<q5BlockAvx512, kQ5BlockBytes>(x, w, n, rows, y);
#endif
    for (size_t o = 0; o < rows; ++o) y[o] = dotQ5Portable(x, w + o * (n / kQ5Block * kQ5BlockBytes), n);
}

void convertQ5(const uint8_t* src, float* dst, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (q5Avx512()) return convertQ5Avx512(src, dst, n);
#endif
    convertQ5Portable(src, dst, n);
}

} // namespace hearsay::simd
