// Kernels over many IEEE half rows at once, AVX-512 where the CPU has it:
// - the single-query attention of a decode step over the half cross cache, one head at a time (also
//   in AVX2 with F16C, the same loops over 8-float vectors): four keys scored per iteration (a head
//   of 64 is four vectors; the four sums reduced together), then the head's output kept in
//   registers across all value rows. The same loops serve the float32 self cache (dots(),
//   weightedSum()), where one dot() and one axpy() call per key row cost more than the reads;
// - the product of f16 weight rows with one vector (a decode step's projections and logits), AVX-512
//   only: four rows per iteration sharing each load of x, with independent sums (gemvQ8, its q8_0
//   twin, lies beside dotQ8 in cpu_simd.cpp and shares its block kernel).
// Elsewhere the rows go through dotHalf() and axpyHalf() (dot() and axpy() for float32).
#include "core/backend/cpu_simd.h"
#include "core/util/half.h"

#include "core/backend/row_prefetch.h"
#include "core/backend/x86_simd.h"

namespace hearsay::simd {
namespace {

#ifdef HEARSAY_SIMD_X86
// A row's c-th 16 values as floats: halves widened, or floats as they are.
__attribute__((target("avx512f"))) inline __m512 row16(const uint16_t* row, size_t c) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 16 * c)));
}
__attribute__((target("avx512f"))) inline __m512 row16(const float* row, size_t c) { return _mm512_loadu_ps(row + 16 * c); }

template <typename T>
__attribute__((target("avx512f"))) void dotsAvx512(const float* q, const T* k, size_t stride, size_t n, size_t hd,
                                                   float scale, float* out) {
    const size_t chunks = hd / 16;
    __m512 qv[8];
    for (size_t c = 0; c < chunks; ++c) qv[c] = _mm512_loadu_ps(q + 16 * c);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const T* r0 = k + i * stride;
        const T* r1 = r0 + stride;
        const T* r2 = r1 + stride;
        const T* r3 = r2 + stride;
        if (i + kPrefetchAheadRows + 4 <= n) {
            for (size_t j = 0; j < 4; ++j) prefetchBytes(r0 + (kPrefetchAheadRows + j) * stride, hd * sizeof(T));
        }
        __m512 a0 = _mm512_mul_ps(qv[0], row16(r0, 0)), a1 = _mm512_mul_ps(qv[0], row16(r1, 0));
        __m512 a2 = _mm512_mul_ps(qv[0], row16(r2, 0)), a3 = _mm512_mul_ps(qv[0], row16(r3, 0));
        for (size_t c = 1; c < chunks; ++c) {
            a0 = _mm512_fmadd_ps(qv[c], row16(r0, c), a0);
            a1 = _mm512_fmadd_ps(qv[c], row16(r1, c), a1);
            a2 = _mm512_fmadd_ps(qv[c], row16(r2, c), a2);
            a3 = _mm512_fmadd_ps(qv[c], row16(r3, c), a3);
        }
        out[i] = _mm512_reduce_add_ps(a0) * scale;
        out[i + 1] = _mm512_reduce_add_ps(a1) * scale;
        out[i + 2] = _mm512_reduce_add_ps(a2) * scale;
        out[i + 3] = _mm512_reduce_add_ps(a3) * scale;
    }
    for (; i < n; ++i) {
        const T* r = k + i * stride;
        __m512 a = _mm512_mul_ps(qv[0], row16(r, 0));
        for (size_t c = 1; c < chunks; ++c) a = _mm512_fmadd_ps(qv[c], row16(r, c), a);
        out[i] = _mm512_reduce_add_ps(a) * scale;
    }
}

template <typename T>
__attribute__((target("avx512f"))) void weightedSumAvx512(const float* p, const T* v, size_t stride, size_t n,
                                                          size_t hd, float* out) {
    const size_t chunks = hd / 16;
    __m512 o[8];
    for (size_t c = 0; c < chunks; ++c) o[c] = _mm512_setzero_ps();
    for (size_t i = 0; i < n; ++i) {
        const __m512 w = _mm512_set1_ps(p[i]);
        const T* r = v + i * stride;
        if (i + kPrefetchAheadRows < n) prefetchBytes(r + kPrefetchAheadRows * stride, hd * sizeof(T));
        for (size_t c = 0; c < chunks; ++c) o[c] = _mm512_fmadd_ps(w, row16(r, c), o[c]);
    }
    for (size_t c = 0; c < chunks; ++c) _mm512_storeu_ps(out + 16 * c, o[c]);
}

__attribute__((target("avx512f"))) void gemvHalfAvx512(const float* x, const uint16_t* w, size_t n, size_t rows,
                                                       float* y) {
    const size_t chunks = n / 16;
    const uint16_t* end = w + rows * n;
    // Each row's lines are prefetched as they are read (a line is two chunks), groupPrefetchDistance ahead.
    const size_t ahead = groupPrefetchDistance(4 * n * sizeof(uint16_t)) / sizeof(uint16_t);
    size_t o = 0;
    for (; o + 4 <= rows; o += 4) {
        const uint16_t* r0 = w + o * n;
        const bool prefetch = size_t(end - r0) >= ahead + 4 * n;
        const uint16_t* r1 = r0 + n;
        const uint16_t* r2 = r1 + n;
        const uint16_t* r3 = r2 + n;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
        for (size_t c = 0; c < chunks; ++c) {
            if (prefetch && c % 2 == 0) prefetchFourRows(r0 + 16 * c, n * sizeof(uint16_t), ahead * sizeof(uint16_t));
            const __m512 xv = _mm512_loadu_ps(x + 16 * c);
            a0 = _mm512_fmadd_ps(xv, row16(r0, c), a0);
            a1 = _mm512_fmadd_ps(xv, row16(r1, c), a1);
            a2 = _mm512_fmadd_ps(xv, row16(r2, c), a2);
            a3 = _mm512_fmadd_ps(xv, row16(r3, c), a3);
        }
        y[o] = _mm512_reduce_add_ps(a0);
        y[o + 1] = _mm512_reduce_add_ps(a1);
        y[o + 2] = _mm512_reduce_add_ps(a2);
        y[o + 3] = _mm512_reduce_add_ps(a3);
    }
    for (; o < rows; ++o) {
        const uint16_t* r = w + o * n;
        __m512 a = _mm512_setzero_ps();
        for (size_t c = 0; c < chunks; ++c) a = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16 * c), row16(r, c), a);
        y[o] = _mm512_reduce_add_ps(a);
    }
}

// The AVX2 twins of the attention kernels above, 8 floats to a vector. The f16 rows times one vector
// keep dotHalf per row there: a four-row AVX2 form with the AVX-512 form's prefetch read the logits
// matrix at 9.4 GB/s where dotHalf's rows read it at 14.6 on an AMD Zen 3 VM (RESULTS.md, "CPU run 9").
__attribute__((target("avx2,fma,f16c"))) inline __m256 row8(const uint16_t* row, size_t c) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 8 * c)));
}
__attribute__((target("avx2,fma,f16c"))) inline __m256 row8(const float* row, size_t c) { return _mm256_loadu_ps(row + 8 * c); }

template <typename T>
__attribute__((target("avx2,fma,f16c"))) void dotsAvx2(const float* q, const T* k, size_t stride, size_t n, size_t hd,
                                                       float scale, float* out) {
    const size_t chunks = hd / 8;
    __m256 qv[16];
    for (size_t c = 0; c < chunks; ++c) qv[c] = _mm256_loadu_ps(q + 8 * c);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const T* r0 = k + i * stride;
        const T* r1 = r0 + stride;
        const T* r2 = r1 + stride;
        const T* r3 = r2 + stride;
        if (i + kPrefetchAheadRows + 4 <= n) {
            for (size_t j = 0; j < 4; ++j) prefetchBytes(r0 + (kPrefetchAheadRows + j) * stride, hd * sizeof(T));
        }
        __m256 a0 = _mm256_mul_ps(qv[0], row8(r0, 0)), a1 = _mm256_mul_ps(qv[0], row8(r1, 0));
        __m256 a2 = _mm256_mul_ps(qv[0], row8(r2, 0)), a3 = _mm256_mul_ps(qv[0], row8(r3, 0));
        for (size_t c = 1; c < chunks; ++c) {
            a0 = _mm256_fmadd_ps(qv[c], row8(r0, c), a0);
            a1 = _mm256_fmadd_ps(qv[c], row8(r1, c), a1);
            a2 = _mm256_fmadd_ps(qv[c], row8(r2, c), a2);
            a3 = _mm256_fmadd_ps(qv[c], row8(r3, c), a3);
        }
        out[i] = reduceAdd8(a0) * scale;
        out[i + 1] = reduceAdd8(a1) * scale;
        out[i + 2] = reduceAdd8(a2) * scale;
        out[i + 3] = reduceAdd8(a3) * scale;
    }
    for (; i < n; ++i) {
        const T* r = k + i * stride;
        __m256 a = _mm256_mul_ps(qv[0], row8(r, 0));
        for (size_t c = 1; c < chunks; ++c) a = _mm256_fmadd_ps(qv[c], row8(r, c), a);
        out[i] = reduceAdd8(a) * scale;
    }
}

template <typename T>
__attribute__((target("avx2,fma,f16c"))) void weightedSumAvx2(const float* p, const T* v, size_t stride, size_t n,
                                                              size_t hd, float* out) {
    const size_t chunks = hd / 8;
    __m256 o[16];
    for (size_t c = 0; c < chunks; ++c) o[c] = _mm256_setzero_ps();
    for (size_t i = 0; i < n; ++i) {
        const __m256 w = _mm256_set1_ps(p[i]);
        const T* r = v + i * stride;
        if (i + kPrefetchAheadRows < n) prefetchBytes(r + kPrefetchAheadRows * stride, hd * sizeof(T));
        for (size_t c = 0; c < chunks; ++c) o[c] = _mm256_fmadd_ps(w, row8(r, c), o[c]);
    }
    for (size_t c = 0; c < chunks; ++c) _mm256_storeu_ps(out + 8 * c, o[c]);
}

#endif

// The vector forms take heads of whole vectors, up to 128 floats (Whisper's are 64).
bool vectorHead(size_t hd) { return hd % 16 == 0 && hd >= 16 && hd <= 128 && usingAvx512(); }
bool vectorHeadAvx2(size_t hd) { return hd % 8 == 0 && hd >= 8 && hd <= 128 && usingAvx2() && usingF16c(); }

// One row's dot product and axpy, half or float32: the portable forms of the kernels below.
float dotRow(const float* a, const uint16_t* w, size_t n) { return dotHalf(a, w, n); }
float dotRow(const float* a, const float* w, size_t n) { return dot(a, w, n); }
void axpyRow(float* y, float alpha, const uint16_t* x, size_t n) { axpyHalf(y, alpha, x, n); }
void axpyRow(float* y, float alpha, const float* x, size_t n) { axpy(y, alpha, x, n); }

template <typename T>
void dotsRows(const float* q, const T* k, size_t stride, size_t n, size_t hd, float scale, float* out) {
#ifdef HEARSAY_SIMD_X86
    if (vectorHead(hd)) return dotsAvx512(q, k, stride, n, hd, scale, out);
    if (vectorHeadAvx2(hd)) return dotsAvx2(q, k, stride, n, hd, scale, out);
#endif
    for (size_t i = 0; i < n; ++i) out[i] = dotRow(q, k + i * stride, hd) * scale;
}

template <typename T>
void weightedSumRows(const float* p, const T* v, size_t stride, size_t n, size_t hd, float* out) {
#ifdef HEARSAY_SIMD_X86
    if (vectorHead(hd)) return weightedSumAvx512(p, v, stride, n, hd, out);
    if (vectorHeadAvx2(hd)) return weightedSumAvx2(p, v, stride, n, hd, out);
#endif
    for (size_t j = 0; j < hd; ++j) out[j] = 0.0f;
    for (size_t i = 0; i < n; ++i) axpyRow(out, p[i], v + i * stride, hd);
}

} // namespace

void dotsHalf(const float* q, const uint16_t* k, size_t stride, size_t n, size_t hd, float scale, float* out) {
    dotsRows(q, k, stride, n, hd, scale, out);
}

void dots(const float* q, const float* k, size_t stride, size_t n, size_t hd, float scale, float* out) {
    dotsRows(q, k, stride, n, hd, scale, out);
}

void gemvHalf(const float* x, const uint16_t* w, size_t n, size_t rows, float* y) {
#ifdef HEARSAY_SIMD_X86
    if (n % 16 == 0 && usingAvx512()) return gemvHalfAvx512(x, w, n, rows, y);
#endif
    for (size_t o = 0; o < rows; ++o) {
        prefetchRowsAhead(w + o * n, n * sizeof(uint16_t), w + rows * n);
        y[o] = dotHalf(x, w + o * n, n);
    }
}

void weightedSumHalf(const float* p, const uint16_t* v, size_t stride, size_t n, size_t hd, float* out) {
    weightedSumRows(p, v, stride, n, hd, out);
}

void weightedSum(const float* p, const float* v, size_t stride, size_t n, size_t hd, float* out) {
    weightedSumRows(p, v, stride, n, hd, out);
}

} // namespace hearsay::simd
