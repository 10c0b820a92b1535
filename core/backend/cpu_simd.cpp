// Portable and AVX2+FMA implementations of the CPU backend's vector kernels; the AVX2 ones
// are compiled with a target attribute and picked once, so the build needs no -march flag.
#include "core/backend/cpu_simd.h"

#include "core/util/half.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HEARSAY_SIMD_X86 1
#endif

namespace hearsay::simd {
namespace {

float dotPortable(const float* a, const float* b, size_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (size_t j = 0; j < 8; ++j) s[j] += a[i + j] * b[i + j];
    }
    for (; i < n; ++i) s[0] += a[i] * b[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

void axpyPortable(float* y, float alpha, const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// The lanes of dotPortable, with each weight converted on the way.
float dotHalfPortable(const float* a, const uint16_t* w, size_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (size_t j = 0; j < 8; ++j) s[j] += a[i + j] * halfToFloat(w[i + j]);
    }
    for (; i < n; ++i) s[0] += a[i] * halfToFloat(w[i]);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

void convertHalfPortable(const uint16_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = halfToFloat(src[i]);
}

#ifdef HEARSAY_SIMD_X86
__attribute__((target("avx2,fma"))) float dotAvx2(const float* a, const float* b, size_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s0 = _mm256_add_ps(s0, s1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    float sum = _mm_cvtss_f32(h);
    for (; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

__attribute__((target("avx2,fma"))) void axpyAvx2(float* y, float alpha, const float* x, size_t n) {
    const __m256 va = _mm256_set1_ps(alpha);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    for (; i < n; ++i) y[i] += alpha * x[i];
}

// dotAvx2 with the weights loaded as 8 halves and widened by vcvtph2ps (exact).
__attribute__((target("avx2,fma,f16c"))) float dotHalfF16c(const float* a, const uint16_t* w, size_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i)));
        const __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i + 8)));
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), w0, s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), w1, s1);
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i)));
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), w0, s0);
    }
    s0 = _mm256_add_ps(s0, s1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    float sum = _mm_cvtss_f32(h);
    for (; i < n; ++i) sum += a[i] * halfToFloat(w[i]);
    return sum;
}

// dotHalfF16c for R rows of a at once: every row keeps its own two accumulators and the same
// order of operations, so the sums are those of R separate calls.
template <int R>
__attribute__((target("avx2,fma,f16c"))) void dotHalfRowsF16c(const float* a, size_t stride, const uint16_t* w,
                                                              size_t n, float* out) {
    __m256 s0[R], s1[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) s0[r] = s1[r] = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i)));
        const __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i + 8)));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
            const float* ar = a + static_cast<size_t>(r) * stride;
            s0[r] = _mm256_fmadd_ps(_mm256_loadu_ps(ar + i), w0, s0[r]);
            s1[r] = _mm256_fmadd_ps(_mm256_loadu_ps(ar + i + 8), w1, s1[r]);
        }
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i)));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) s0[r] = _mm256_fmadd_ps(_mm256_loadu_ps(a + static_cast<size_t>(r) * stride + i), w0, s0[r]);
    }
    for (int r = 0; r < R; ++r) {
        const __m256 s = _mm256_add_ps(s0[r], s1[r]);
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        float sum = _mm_cvtss_f32(h);
        const float* ar = a + static_cast<size_t>(r) * stride;
        for (size_t j = i; j < n; ++j) sum += ar[j] * halfToFloat(w[j]);
        out[r] = sum;
    }
}

__attribute__((target("avx2,f16c"))) void convertHalfF16c(const uint16_t* src, float* dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    for (; i < n; ++i) dst[i] = halfToFloat(src[i]);
}

bool detectAvx2() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool detectF16c() {
    __builtin_cpu_init();
    return detectAvx2() && __builtin_cpu_supports("f16c");
}
#else
bool detectAvx2() { return false; }
bool detectF16c() { return false; }
#endif

const bool kAvx2 = detectAvx2();
const bool kF16c = detectF16c();

} // namespace

bool usingAvx2() { return kAvx2; }

bool usingF16c() { return kF16c; }

float dot(const float* a, const float* b, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kAvx2) return dotAvx2(a, b, n);
#endif
    return dotPortable(a, b, n);
}

void axpy(float* y, float alpha, const float* x, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kAvx2) return axpyAvx2(y, alpha, x, n);
#endif
    axpyPortable(y, alpha, x, n);
}

float dotHalf(const float* a, const uint16_t* w, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kF16c) return dotHalfF16c(a, w, n);
#endif
    return dotHalfPortable(a, w, n);
}

void dotHalfRows(const float* a, size_t stride, size_t rows, const uint16_t* w, size_t n, float* out) {
    size_t r = 0;
#ifdef HEARSAY_SIMD_X86
    if (kF16c) {
        for (; r + 4 <= rows; r += 4) dotHalfRowsF16c<4>(a + r * stride, stride, w, n, out + r);
        switch (rows - r) {
        case 3: return dotHalfRowsF16c<3>(a + r * stride, stride, w, n, out + r);
        case 2: return dotHalfRowsF16c<2>(a + r * stride, stride, w, n, out + r);
        case 1: return dotHalfRowsF16c<1>(a + r * stride, stride, w, n, out + r);
        default: return;
        }
    }
#endif
    for (; r < rows; ++r) out[r] = dotHalfPortable(a + r * stride, w, n);
}

void convertHalf(const uint16_t* src, float* dst, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kF16c) return convertHalfF16c(src, dst, n);
#endif
    convertHalfPortable(src, dst, n);
}

} // namespace hearsay::simd
