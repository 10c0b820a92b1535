// Kernels over many IEEE half rows at once, AVX-512 where the CPU has it:
// - one query's attention over the half cross cache in a decode step, all heads of a key row
//   together and the rows in order (also in AVX2 with F16C, the same loops over 8-float vectors):
//   four heads scored per iteration, then the heads' weighted sums kept in L1 while the value rows
//   stream past. The same loops serve the float32 self cache (headDots(), headWeightedSum()), where
//   one dot() and one axpy() call per key row cost more than the reads;
// - the product of f16 weight rows with one vector (a decode step's projections and logits), AVX-512
//   (and AVX2 for long rows): four rows per iteration sharing each load of x, with independent sums
//   (gemvQ8, its q8_0 twin, lies beside dotQ8 in cpu_simd.cpp and shares its block kernel).
// Elsewhere the rows go through dotHalf() and axpyHalf() (dot() and axpy() for float32).
#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"
#include "core/util/half.h"

#include "core/backend/row_prefetch.h"
#include "core/backend/x86_simd.h"

#include <string_view>

namespace hearsay::simd {
namespace {

#ifdef HEARSAY_SIMD_X86
// A row's c-th 16 values as floats: halves widened, or floats as they are.
__attribute__((target("avx512f"))) inline __m512 row16(const uint16_t* row, size_t c) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 16 * c)));
}
__attribute__((target("avx512f"))) inline __m512 row16(const float* row, size_t c) { return _mm512_loadu_ps(row + 16 * c); }

// One query against every head of each key row, row after row: the rows are read front to back,
// whole, which the prefetchers follow. One head at a time over all its keys (a head's 128 bytes out
// of each 1 or 2 KB row) scored base's and medium's cross cache at 20 to 26 GB/s with two threads
// on an Intel Xeon with AVX-512, whole rows at 38 to 42 (a throwaway loop; RESULTS.md, "CPU run
// 17"). Four heads share an iteration (independent sums); each head's sum is the one the per-head
// form took: the chunks in order, then one horizontal sum, then the scale.
// Each four heads' bytes are prefetched as they are read (prefetchGroupAhead), not a whole row's
// at the row's start, and kChunks > 0 compiles the head width in (Whisper's 64, kChunks = 4: the
// chunk loops unrolled). In medium's decode step, alternated builds with the cache in huge pages,
// the cross attention read 20.1 to 20.6 GB/s before, 21.1 to 21.9 with the spread prefetches, 22.2
// to 23.6 with both (RESULTS.md, "CPU run 20"). The weighted sum below does the same.
template <typename T, size_t kChunks>
__attribute__((target("avx512f"))) void headDotsAvx512(const float* q, const T* k, size_t stride, size_t n,
                                                       size_t heads, size_t hdGiven, float scale, float* out,
                                                       size_t outStride) {
    const size_t hd = kChunks ? 16 * kChunks : hdGiven, chunks = hd / 16, width = heads * hd;
    const T* end = k + (n - 1) * stride + width;
    for (size_t i = 0; i < n; ++i) {
        const T* row = k + i * stride;
        size_t h = 0;
        for (; h + 4 <= heads; h += 4) {
            const T* r0 = row + h * hd;
            prefetchGroupAhead(r0, 4 * hd * sizeof(T), end);
            const float* q0 = q + h * hd;
            __m512 a0 = _mm512_mul_ps(_mm512_loadu_ps(q0), row16(r0, 0));
            __m512 a1 = _mm512_mul_ps(_mm512_loadu_ps(q0 + hd), row16(r0 + hd, 0));
            __m512 a2 = _mm512_mul_ps(_mm512_loadu_ps(q0 + 2 * hd), row16(r0 + 2 * hd, 0));
            __m512 a3 = _mm512_mul_ps(_mm512_loadu_ps(q0 + 3 * hd), row16(r0 + 3 * hd, 0));
            for (size_t c = 1; c < chunks; ++c) {
                a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 16 * c), row16(r0, c), a0);
                a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + hd + 16 * c), row16(r0 + hd, c), a1);
                a2 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 2 * hd + 16 * c), row16(r0 + 2 * hd, c), a2);
                a3 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 3 * hd + 16 * c), row16(r0 + 3 * hd, c), a3);
            }
            out[h * outStride + i] = _mm512_reduce_add_ps(a0) * scale;
            out[(h + 1) * outStride + i] = _mm512_reduce_add_ps(a1) * scale;
            out[(h + 2) * outStride + i] = _mm512_reduce_add_ps(a2) * scale;
            out[(h + 3) * outStride + i] = _mm512_reduce_add_ps(a3) * scale;
        }
        for (; h < heads; ++h) {
            const T* r = row + h * hd;
            prefetchGroupAhead(r, hd * sizeof(T), end);
            const float* qh = q + h * hd;
            __m512 a = _mm512_mul_ps(_mm512_loadu_ps(qh), row16(r, 0));
            for (size_t c = 1; c < chunks; ++c) a = _mm512_fmadd_ps(_mm512_loadu_ps(qh + 16 * c), row16(r, c), a);
            out[h * outStride + i] = _mm512_reduce_add_ps(a) * scale;
        }
    }
}

// The weighted sum of every head's value rows, row after row, two rows at a time: the heads' outputs
// (heads × hd floats, a few KB) stay in L1 between rows, each output element summed over the rows
// in order. Each head's part of the two rows is prefetched as it is read.
template <typename T, size_t kChunks>
__attribute__((target("avx512f"))) void headWeightedSumAvx512(const float* p, size_t pStride, const T* v,
                                                              size_t stride, size_t n, size_t heads, size_t hdGiven,
                                                              float* out) {
    const size_t hd = kChunks ? 16 * kChunks : hdGiven, chunks = hd / 16, width = heads * hd;
    for (size_t j = 0; j < width; j += 16) _mm512_storeu_ps(out + j, _mm512_setzero_ps());
    const T* end = v + (n - 1) * stride + width;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const T* r0 = v + i * stride;
        const T* r1 = r0 + stride;
        for (size_t h = 0; h < heads; ++h) {
            const __m512 w0 = _mm512_set1_ps(p[h * pStride + i]);
            const __m512 w1 = _mm512_set1_ps(p[h * pStride + i + 1]);
            float* o = out + h * hd;
            const T* h0 = r0 + h * hd;
            const T* h1 = r1 + h * hd;
            prefetchGroupAhead(h0, hd * sizeof(T), end);
            prefetchGroupAhead(h1, hd * sizeof(T), end);
            for (size_t c = 0; c < chunks; ++c) {
                const __m512 sum = _mm512_fmadd_ps(w0, row16(h0, c), _mm512_loadu_ps(o + 16 * c));
                _mm512_storeu_ps(o + 16 * c, _mm512_fmadd_ps(w1, row16(h1, c), sum));
            }
        }
    }
    if (i < n) {
        const T* r = v + i * stride;
        for (size_t h = 0; h < heads; ++h) {
            const __m512 w = _mm512_set1_ps(p[h * pStride + i]);
            float* o = out + h * hd;
            for (size_t c = 0; c < chunks; ++c)
                _mm512_storeu_ps(o + 16 * c, _mm512_fmadd_ps(w, row16(r + h * hd, c), _mm512_loadu_ps(o + 16 * c)));
        }
    }
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

// The AVX2 twins of the attention kernels above, 8 floats to a vector; they still prefetch each
// row whole at its start (the spread prefetches were measured only with AVX-512).
__attribute__((target("avx2,fma,f16c"))) inline __m256 row8(const uint16_t* row, size_t c) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 8 * c)));
}
__attribute__((target("avx2,fma,f16c"))) inline __m256 row8(const float* row, size_t c) { return _mm256_loadu_ps(row + 8 * c); }

// f16 rows of at least kLongHalfRow values times one vector on AVX2, four rows per iteration sharing
// each load of x, each row's lines prefetched as they are read (groupPrefetchDistance ahead). Each
// row keeps dotHalfF16c's two sums (the even and the odd 8 of every 16) and adds them the same
// way, so y[o] equals dotHalf(x, row o, n) bit for bit. Shorter rows keep dotHalf per row with the
// whole row prefetched at its start: on an AMD Zen 3 VM (two threads, a 133 MB matrix) that read
// rows of 512 to 1024 at 27 to 37 GB/s against 24 to 31 for this form, rows of 3072 to 5120 at 23
// to 27 against 33 to 41 (the decoder's fc2; RESULTS.md, "CPU run 26"). Run 9 found an earlier
// four-row form slower on the logits (1280 wide) with the prefetches of that time.
constexpr size_t kLongHalfRow = 2048;

__attribute__((target("avx2,fma,f16c"))) void gemvHalfAvx2(const float* x, const uint16_t* w, size_t n, size_t rows,
                                                           float* y) {
    const size_t rowBytes = n * sizeof(uint16_t), ahead = groupPrefetchDistance(4 * rowBytes);
    const uint16_t* end = w + rows * n;
    size_t o = 0;
    for (; o + 4 <= rows; o += 4) {
        const uint16_t* r0 = w + o * n;
        const bool prefetch = size_t(end - r0) * sizeof(uint16_t) >= ahead + 4 * rowBytes;
        __m256 s0[4], s1[4];
        for (int r = 0; r < 4; ++r) s0[r] = s1[r] = _mm256_setzero_ps();
        for (size_t i = 0; i < n; i += 16) {
            if (prefetch && i % 32 == 0) prefetchFourRows(r0 + i, rowBytes, ahead);  // a line of each row
            const __m256 x0 = _mm256_loadu_ps(x + i), x1 = _mm256_loadu_ps(x + i + 8);
#pragma GCC unroll 4
            for (size_t r = 0; r < 4; ++r) {
                s0[r] = _mm256_fmadd_ps(x0, row8(r0 + r * n + i, 0), s0[r]);
                s1[r] = _mm256_fmadd_ps(x1, row8(r0 + r * n + i, 1), s1[r]);
            }
        }
        for (size_t r = 0; r < 4; ++r) y[o + r] = reduceAdd8(_mm256_add_ps(s0[r], s1[r]));
    }
    for (; o < rows; ++o) y[o] = dotHalf(x, w + o * n, n);
}

template <typename T>
__attribute__((target("avx2,fma,f16c"))) void headDotsAvx2(const float* q, const T* k, size_t stride, size_t n,
                                                           size_t heads, size_t hd, float scale, float* out,
                                                           size_t outStride) {
    const size_t chunks = hd / 8, width = heads * hd;
    const T* end = k + (n - 1) * stride + width;
    for (size_t i = 0; i < n; ++i) {
        const T* row = k + i * stride;
        prefetchRowsAhead(row, width * sizeof(T), end);
        size_t h = 0;
        for (; h + 4 <= heads; h += 4) {
            const T* r0 = row + h * hd;
            const float* q0 = q + h * hd;
            __m256 a0 = _mm256_mul_ps(_mm256_loadu_ps(q0), row8(r0, 0));
            __m256 a1 = _mm256_mul_ps(_mm256_loadu_ps(q0 + hd), row8(r0 + hd, 0));
            __m256 a2 = _mm256_mul_ps(_mm256_loadu_ps(q0 + 2 * hd), row8(r0 + 2 * hd, 0));
            __m256 a3 = _mm256_mul_ps(_mm256_loadu_ps(q0 + 3 * hd), row8(r0 + 3 * hd, 0));
            for (size_t c = 1; c < chunks; ++c) {
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + 8 * c), row8(r0, c), a0);
                a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + hd + 8 * c), row8(r0 + hd, c), a1);
                a2 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + 2 * hd + 8 * c), row8(r0 + 2 * hd, c), a2);
                a3 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + 3 * hd + 8 * c), row8(r0 + 3 * hd, c), a3);
            }
            out[h * outStride + i] = reduceAdd8(a0) * scale;
            out[(h + 1) * outStride + i] = reduceAdd8(a1) * scale;
            out[(h + 2) * outStride + i] = reduceAdd8(a2) * scale;
            out[(h + 3) * outStride + i] = reduceAdd8(a3) * scale;
        }
        for (; h < heads; ++h) {
            const T* r = row + h * hd;
            const float* qh = q + h * hd;
            __m256 a = _mm256_mul_ps(_mm256_loadu_ps(qh), row8(r, 0));
            for (size_t c = 1; c < chunks; ++c) a = _mm256_fmadd_ps(_mm256_loadu_ps(qh + 8 * c), row8(r, c), a);
            out[h * outStride + i] = reduceAdd8(a) * scale;
        }
    }
}

template <typename T>
__attribute__((target("avx2,fma,f16c"))) void headWeightedSumAvx2(const float* p, size_t pStride, const T* v,
                                                                  size_t stride, size_t n, size_t heads, size_t hd,
                                                                  float* out) {
    const size_t chunks = hd / 8, width = heads * hd;
    for (size_t j = 0; j < width; j += 8) _mm256_storeu_ps(out + j, _mm256_setzero_ps());
    const T* end = v + (n - 1) * stride + width;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const T* r0 = v + i * stride;
        const T* r1 = r0 + stride;
        prefetchRowsAhead(r0, width * sizeof(T), end);
        prefetchRowsAhead(r1, width * sizeof(T), end);
        for (size_t h = 0; h < heads; ++h) {
            const __m256 w0 = _mm256_set1_ps(p[h * pStride + i]);
            const __m256 w1 = _mm256_set1_ps(p[h * pStride + i + 1]);
            float* o = out + h * hd;
            const T* h0 = r0 + h * hd;
            const T* h1 = r1 + h * hd;
            for (size_t c = 0; c < chunks; ++c) {
                const __m256 sum = _mm256_fmadd_ps(w0, row8(h0, c), _mm256_loadu_ps(o + 8 * c));
                _mm256_storeu_ps(o + 8 * c, _mm256_fmadd_ps(w1, row8(h1, c), sum));
            }
        }
    }
    if (i < n) {
        const T* r = v + i * stride;
        for (size_t h = 0; h < heads; ++h) {
            const __m256 w = _mm256_set1_ps(p[h * pStride + i]);
            float* o = out + h * hd;
            for (size_t c = 0; c < chunks; ++c)
                _mm256_storeu_ps(o + 8 * c, _mm256_fmadd_ps(w, row8(r + h * hd, c), _mm256_loadu_ps(o + 8 * c)));
        }
    }
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
void headDotsRows(const float* q, const T* k, size_t stride, size_t n, size_t heads, size_t hd, float scale, float* out,
                  size_t outStride) {
    if (n == 0 || heads == 0) return;
#ifdef HEARSAY_SIMD_X86
    if (vectorHead(hd)) {
        return hd == 64 ? headDotsAvx512<T, 4>(q, k, stride, n, heads, hd, scale, out, outStride)
                        : headDotsAvx512<T, 0>(q, k, stride, n, heads, hd, scale, out, outStride);
    }
    if (vectorHeadAvx2(hd)) return headDotsAvx2(q, k, stride, n, heads, hd, scale, out, outStride);
#endif
    for (size_t i = 0; i < n; ++i)
        for (size_t h = 0; h < heads; ++h) out[h * outStride + i] = dotRow(q + h * hd, k + i * stride + h * hd, hd) * scale;
}

template <typename T>
void headWeightedSumRows(const float* p, size_t pStride, const T* v, size_t stride, size_t n, size_t heads, size_t hd,
                         float* out) {
    if (heads == 0) return;
    if (n == 0) {
        for (size_t j = 0; j < heads * hd; ++j) out[j] = 0.0f;
        return;
    }
#ifdef HEARSAY_SIMD_X86
    if (vectorHead(hd)) {
        return hd == 64 ? headWeightedSumAvx512<T, 4>(p, pStride, v, stride, n, heads, hd, out)
                        : headWeightedSumAvx512<T, 0>(p, pStride, v, stride, n, heads, hd, out);
    }
    if (vectorHeadAvx2(hd)) return headWeightedSumAvx2(p, pStride, v, stride, n, heads, hd, out);
#endif
    for (size_t j = 0; j < heads * hd; ++j) out[j] = 0.0f;
    for (size_t i = 0; i < n; ++i)
        for (size_t h = 0; h < heads; ++h) axpyRow(out + h * hd, p[h * pStride + i], v + i * stride + h * hd, hd);
}

} // namespace

void headDotsHalf(const float* q, const uint16_t* k, size_t stride, size_t n, size_t heads, size_t hd, float scale,
                  float* out, size_t outStride) {
    headDotsRows(q, k, stride, n, heads, hd, scale, out, outStride);
}

void headDots(const float* q, const float* k, size_t stride, size_t n, size_t heads, size_t hd, float scale, float* out,
              size_t outStride) {
    headDotsRows(q, k, stride, n, heads, hd, scale, out, outStride);
}

void gemvHalf(const float* x, const uint16_t* w, size_t n, size_t rows, float* y) {
#ifdef HEARSAY_SIMD_X86
    // HEARSAY_VECTOR_MATH=avx2 takes the AVX2 forms on a CPU with AVX-512 too (for the tests).
    static const bool avx512 = usingAvx512() && std::string_view(vectorMathPath()) != "avx2";
    if (n % 16 == 0 && avx512) return gemvHalfAvx512(x, w, n, rows, y);
    if (n % 16 == 0 && n >= kLongHalfRow && usingF16c()) return gemvHalfAvx2(x, w, n, rows, y);
#endif
    for (size_t o = 0; o < rows; ++o) {
        prefetchRowsAhead(w + o * n, n * sizeof(uint16_t), w + rows * n);
        y[o] = dotHalf(x, w + o * n, n);
    }
}

void headWeightedSumHalf(const float* p, size_t pStride, const uint16_t* v, size_t stride, size_t n, size_t heads,
                         size_t hd, float* out) {
    headWeightedSumRows(p, pStride, v, stride, n, heads, hd, out);
}

void headWeightedSum(const float* p, size_t pStride, const float* v, size_t stride, size_t n, size_t heads, size_t hd,
                     float* out) {
    headWeightedSumRows(p, pStride, v, stride, n, heads, hd, out);
}

} // namespace hearsay::simd
