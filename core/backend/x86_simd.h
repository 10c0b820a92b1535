// x86 vector intrinsics for the CPU backend's kernels (compiled per function with target
// attributes and chosen at run time, so the build needs no -march flag). Defines
// HEARSAY_SIMD_X86 on x86. GCC 12 warns inside its own AVX-512 headers (_mm512_undefined_ps in
// masked and reducing intrinsics), a known false positive of -Wmaybe-uninitialized, silenced
// for the files that include this one.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <cstdint>
#include <immintrin.h>
#define HEARSAY_SIMD_X86 1
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace hearsay::simd {

// The sum and the maximum of a vector's 8 floats, in one fixed order (so that kernels which must
// agree with each other, dotHalf and dotHalfRows, reduce alike).
__attribute__((target("avx"))) inline float reduceAdd8(__m256 v) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

__attribute__((target("avx"))) inline float reduceMax8(__m256 v) {
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

// 0xFF in byte j where bit j of `bits` is set, 0 elsewhere (a q5 block's high bits as bytes).
__attribute__((target("avx2"))) inline __m256i bitBytes(uint32_t bits) {
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(int(bits)),
        _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
    const __m256i select = _mm256_set1_epi64x(int64_t(0x8040201008040201));
    return _mm256_cmpeq_epi8(_mm256_and_si256(spread, select), select);
}

} // namespace hearsay::simd
#endif
