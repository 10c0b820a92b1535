// Portable and AVX2+FMA implementations of the CPU backend's vector kernels; the AVX2 ones
// are compiled with a target attribute and picked once, so the build needs no -march flag.
#include "core/backend/cpu_simd.h"

#include "core/util/half.h"

#include <cstring>

#include "core/backend/block_gemv_avx512.h"
#include "core/backend/row_prefetch.h"
#include "core/backend/x86_simd.h"

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
        for (size_t j = 0; j < 8; ++j) s[j] += a[i + j] * halfAt(w, i + j);
    }
    for (; i < n; ++i) s[0] += a[i] * halfAt(w, i);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

float q8Scale(const uint8_t* block) {
    uint16_t bits;
    std::memcpy(&bits, block, sizeof bits);
    return halfToFloat(bits);
}

float dotQ8Portable(const float* a, const uint8_t* w, size_t n) {
    float total = 0.0f;
    for (size_t b = 0; b < n / kQ8Block; ++b) {
        const uint8_t* block = w + b * kQ8BlockBytes;
        const auto* q = reinterpret_cast<const int8_t*>(block + 2);
        const float* x = a + b * kQ8Block;
        float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t j = 0; j < kQ8Block; j += 8) {
            for (size_t k = 0; k < 8; ++k) s[k] += x[j + k] * float(q[j + k]);
        }
        total += q8Scale(block) * (((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])));
    }
    return total;
}

void convertQ8Portable(const uint8_t* src, float* dst, size_t n) {
    for (size_t b = 0; b < n / kQ8Block; ++b) {
        const uint8_t* block = src + b * kQ8BlockBytes;
        const auto* q = reinterpret_cast<const int8_t*>(block + 2);
        const float d = q8Scale(block);
        for (size_t j = 0; j < kQ8Block; ++j) dst[b * kQ8Block + j] = d * float(q[j]);
    }
}

void convertHalfPortable(const uint16_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = halfAt(src, i);
}

void roundToHalfPortable(const float* src, uint16_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = floatToHalf(src[i]);
}

void axpyHalfPortable(float* y, float alpha, const uint16_t* x, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] += alpha * halfAt(x, i);
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
    float sum = reduceAdd8(s0);
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
    float sum = reduceAdd8(s0);
    for (; i < n; ++i) sum += a[i] * halfAt(w, i);
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
        float sum = reduceAdd8(s);
        const float* ar = a + static_cast<size_t>(r) * stride;
        for (size_t j = i; j < n; ++j) sum += ar[j] * halfAt(w, j);
        out[r] = sum;
    }
}

__attribute__((target("avx2,f16c"))) void convertHalfF16c(const uint16_t* src, float* dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    for (; i < n; ++i) dst[i] = halfAt(src, i);
}

__attribute__((target("avx2,f16c"))) void roundToHalfF16c(const float* src, uint16_t* dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    }
    for (; i < n; ++i) dst[i] = floatToHalf(src[i]);
}

__attribute__((target("avx2,fma,f16c"))) void axpyHalfF16c(float* y, float alpha, const uint16_t* x, size_t n) {
    const __m256 va = _mm256_set1_ps(alpha);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 xv = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, xv, _mm256_loadu_ps(y + i)));
    }
    for (; i < n; ++i) y[i] += alpha * halfAt(x, i);
}

// One q8_0 block: the 32 int8 widened to two vectors of 16 floats, multiplied with the block's
// x (x0, x1), and the block's sum (a vector) scaled by d into the total.
__attribute__((target("avx512f,f16c"))) inline __m512 q8BlockAvx512(__m512 x0, __m512 x1, const uint8_t* p,
                                                                    __m512 total) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    const __m512 d = _mm512_set1_ps(_cvtsh_ss(bits));
    const __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2));
    const __m128i q1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 18));
    __m512 s = _mm512_mul_ps(x0, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q0)));
    s = _mm512_fmadd_ps(x1, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q1)), s);
    return _mm512_fmadd_ps(s, d, total);
}

__attribute__((target("avx512f,f16c"))) inline __m512 q8BlockAvx512(const float* x, const uint8_t* p, __m512 total) {
    return q8BlockAvx512(_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16), p, total);
}

// Two blocks per step with independent accumulators.
__attribute__((target("avx512f,f16c"))) float dotQ8Avx512(const float* a, const uint8_t* w, size_t n) {
    __m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
    const size_t blocks = n / kQ8Block;
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        t0 = q8BlockAvx512(a + b * kQ8Block, w + b * kQ8BlockBytes, t0);
        t1 = q8BlockAvx512(a + (b + 1) * kQ8Block, w + (b + 1) * kQ8BlockBytes, t1);
    }
    if (b < blocks) t0 = q8BlockAvx512(a + b * kQ8Block, w + b * kQ8BlockBytes, t0);
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

__attribute__((target("avx2,fma,f16c"))) float dotQ8Avx2(const float* a, const uint8_t* w, size_t n) {
    __m256 t0 = _mm256_setzero_ps(), t1 = _mm256_setzero_ps();
    for (size_t k = 0; k < n / kQ8Block; ++k) {
        const uint8_t* p = w + k * kQ8BlockBytes;
        uint16_t bits;
        std::memcpy(&bits, p, sizeof bits);
        const __m256 d = _mm256_set1_ps(_cvtsh_ss(bits));
        const float* x = a + k * kQ8Block;
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        for (size_t j = 0; j < kQ8Block; j += 16) {
            const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 + j));
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + j), _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), s0);
            s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + j + 8),
                                 _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8))), s1);
        }
        if (k % 2 == 0) t0 = _mm256_fmadd_ps(_mm256_add_ps(s0, s1), d, t0);
        else t1 = _mm256_fmadd_ps(_mm256_add_ps(s0, s1), d, t1);
    }
    const __m256 t = _mm256_add_ps(t0, t1);
    return reduceAdd8(t);
}

__attribute__((target("avx2,fma,f16c"))) void convertQ8Avx2(const uint8_t* src, float* dst, size_t n) {
    for (size_t k = 0; k < n / kQ8Block; ++k) {
        const uint8_t* p = src + k * kQ8BlockBytes;
        uint16_t bits;
        std::memcpy(&bits, p, sizeof bits);
        const __m256 d = _mm256_set1_ps(_cvtsh_ss(bits));
        for (size_t j = 0; j < kQ8Block; j += 8) {
            const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 2 + j));
            _mm256_storeu_ps(dst + k * kQ8Block + j, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q))));
        }
    }
}

// F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports does not know "f16c".
bool cpuHasF16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
}

bool detectAvx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && cpuHasF16c();
}

bool detectAvx2() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool detectF16c() {
    __builtin_cpu_init();
    return detectAvx2() && cpuHasF16c();
}
#else
bool detectAvx512() { return false; }
bool detectAvx2() { return false; }
bool detectF16c() { return false; }
#endif

const bool kAvx2 = detectAvx2();
const bool kF16c = detectF16c();
const bool kAvx512 = detectAvx512();

} // namespace

bool usingAvx2() { return kAvx2; }

bool usingF16c() { return kF16c; }

bool usingAvx512() { return kAvx512; }

float dotQ8(const float* a, const uint8_t* w, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kAvx512) return dotQ8Avx512(a, w, n);
    if (kF16c) return dotQ8Avx2(a, w, n);
#endif
    return dotQ8Portable(a, w, n);
}

void gemvQ8(const float* x, const uint8_t* w, size_t n, size_t rows, float* y) {
#ifdef HEARSAY_SIMD_X86
    if (kAvx512) return gemvBlocksAvx512<q8BlockAvx512, kQ8BlockBytes>(x, w, n, rows, y);
#endif
    const size_t rowBytes = n / kQ8Block * kQ8BlockBytes;
    for (size_t o = 0; o < rows; ++o) {
        prefetchRowsAhead(w + o * rowBytes, rowBytes, w + rows * rowBytes);
        y[o] = dotQ8(x, w + o * rowBytes, n);
    }
}

void convertQ8(const uint8_t* src, float* dst, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kF16c) return convertQ8Avx2(src, dst, n);
#endif
    convertQ8Portable(src, dst, n);
}

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

void roundToHalf(const float* src, uint16_t* dst, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kF16c) return roundToHalfF16c(src, dst, n);
#endif
    roundToHalfPortable(src, dst, n);
}

void axpyHalf(float* y, float alpha, const uint16_t* x, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kF16c) return axpyHalfF16c(y, alpha, x, n);
#endif
    axpyHalfPortable(y, alpha, x, n);
}

} // namespace hearsay::simd
