// attentionTile(): scores in tiles of up to 8 queries × 32 keys (AVX-512: 16 accumulators, the
// queries broadcast, the transposed keys loaded two vectors per head_dim column; AVX2: 6 queries ×
// 16 keys), the row's exponentials in place (expShifted), then the weighted sum in tiles of up to 6
// queries × 64 output columns (AVX-512: 24 accumulators, over chunks of 128 keys whose values stay
// in L1; AVX2: 6 × 16 columns, 12 accumulators, over all the keys of a 16-column slice of the
// values), scaled by 1/Σ at the end.
#include "core/backend/cpu_attention_tiles.h"

#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"
#include "core/backend/x86_simd.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace hearsay::simd {
namespace {

constexpr int kScoreKeys = 32;  // keys per chunk of the transposed keys (tileKeyIndex)
constexpr int kValueRows = 6;   // queries per weighted-sum tile

#ifdef HEARSAY_SIMD_X86
int visibleOf(const TileHead& head, bool causal, int firstVisible, int r) {
    return causal ? std::min(firstVisible + r, head.keys) : head.keys;
}

// The row's exponentials, the columns it may not see set to zero; returns 1/Σ.
float exponentials(float* row, int visible, int keys) {
    const float sum = expShifted(row, static_cast<size_t>(visible));
    std::fill(row + visible, row + keys, 0.0f);
    return 1.0f / sum;
}

using ScoreTile = void (*)(const float*, size_t, const float*, int, float, float*, size_t);
using ValueTile = void (*)(const float*, size_t, int, int, const float*, size_t, float*, size_t, bool);

// The two kernels in each instruction set: the same loops in vectors of 16 floats (AVX-512) or 8
// (AVX2). A score tile is R queries × two vectors of keys: a whole chunk of 32 keys with AVX-512
// (16 accumulators at R = 8), half of one with AVX2 (12 of its 16 registers at R = 6). A
// weighted-sum tile is R queries × NV vectors of output columns (AVX-512: 6 × 4 vectors, 64
// columns; AVX2: 6 × 2, 16 columns).

// s[r][0..32) = scale · q_r · the 32 keys of one chunk of kt (kt[c·32 + i] = k_i[c]), r < R.
template <int R>
__attribute__((target("avx512f"))) void scoreTileAvx512(const float* q, size_t qStride, const float* kt, int hd,
                                                        float scale, float* s, size_t sStride) {
    __m512 a0[R], a1[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) a0[r] = a1[r] = _mm512_setzero_ps();
    for (int c = 0; c < hd; ++c) {
        const float* k = kt + static_cast<size_t>(c) * kScoreKeys;
        const __m512 k0 = _mm512_loadu_ps(k), k1 = _mm512_loadu_ps(k + 16);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512 b = _mm512_set1_ps(q[static_cast<size_t>(r) * qStride + static_cast<size_t>(c)]);
            a0[r] = _mm512_fmadd_ps(b, k0, a0[r]);
            a1[r] = _mm512_fmadd_ps(b, k1, a1[r]);
        }
    }
    const __m512 sc = _mm512_set1_ps(scale);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* row = s + static_cast<size_t>(r) * sStride;
        _mm512_storeu_ps(row, _mm512_mul_ps(a0[r], sc));
        _mm512_storeu_ps(row + 16, _mm512_mul_ps(a1[r], sc));
    }
}

// The same for 16 of a chunk's keys (kt points at the first of them within the chunk), hd ≥ 1. The
// first column's products start the sums, as an FMA onto zero would (but for the sign of a zero,
// which the exponential does not see): with the 12 sums set to zero first, a tile of head_dim 64
// took 1.13x the time on Zen 3 (RESULTS.md, "CPU run 26").
template <int R>
__attribute__((target("avx2,fma"))) void scoreTileAvx2(const float* q, size_t qStride, const float* kt, int hd,
                                                       float scale, float* s, size_t sStride) {
    __m256 a0[R], a1[R];
    {
        const __m256 k0 = _mm256_loadu_ps(kt), k1 = _mm256_loadu_ps(kt + 8);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 b = _mm256_set1_ps(q[static_cast<size_t>(r) * qStride]);
            a0[r] = _mm256_mul_ps(b, k0);
            a1[r] = _mm256_mul_ps(b, k1);
        }
    }
    for (int c = 1; c < hd; ++c) {
        const float* k = kt + static_cast<size_t>(c) * kScoreKeys;
        const __m256 k0 = _mm256_loadu_ps(k), k1 = _mm256_loadu_ps(k + 8);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 b = _mm256_set1_ps(q[static_cast<size_t>(r) * qStride + static_cast<size_t>(c)]);
            a0[r] = _mm256_fmadd_ps(b, k0, a0[r]);
            a1[r] = _mm256_fmadd_ps(b, k1, a1[r]);
        }
    }
    const __m256 sc = _mm256_set1_ps(scale);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* row = s + static_cast<size_t>(r) * sStride;
        _mm256_storeu_ps(row, _mm256_mul_ps(a0[r], sc));
        _mm256_storeu_ps(row + 8, _mm256_mul_ps(a1[r], sc));
    }
}

// sums[r][0..16·NV) (+)= Σ_{begin≤i<end} p[r][i] · v[i][0..16·NV), r < R: set on the first
// chunk of keys, added to on the others.
template <int R, int NV>
__attribute__((target("avx512f"))) void valueTileAvx512(const float* p, size_t pStride, int begin, int end,
                                                        const float* v, size_t valueStride, float* sums,
                                                        size_t sumStride, bool first) {
    __m512 acc[R][NV];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) {
            acc[r][c] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(sums + static_cast<size_t>(r) * sumStride + 16 * c);
        }
    }
    for (int i = begin; i < end; ++i) {
        const float* vi = v + static_cast<size_t>(i) * valueStride;
        __m512 vv[NV];
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) vv[c] = _mm512_loadu_ps(vi + 16 * c);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m512 b = _mm512_set1_ps(p[static_cast<size_t>(r) * pStride + static_cast<size_t>(i)]);
#pragma GCC unroll 4
            for (int c = 0; c < NV; ++c) acc[r][c] = _mm512_fmadd_ps(b, vv[c], acc[r][c]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) _mm512_storeu_ps(sums + static_cast<size_t>(r) * sumStride + 16 * c, acc[r][c]);
    }
}

// The same in vectors of 8 columns.
template <int R, int NV>
__attribute__((target("avx2,fma"))) void valueTileAvx2(const float* p, size_t pStride, int begin, int end,
                                                       const float* v, size_t valueStride, float* sums,
                                                       size_t sumStride, bool first) {
    __m256 acc[R][NV];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) {
            acc[r][c] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(sums + static_cast<size_t>(r) * sumStride + 8 * c);
        }
    }
    for (int i = begin; i < end; ++i) {
        const float* vi = v + static_cast<size_t>(i) * valueStride;
        __m256 vv[NV];
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) vv[c] = _mm256_loadu_ps(vi + 8 * c);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256 b = _mm256_set1_ps(p[static_cast<size_t>(r) * pStride + static_cast<size_t>(i)]);
#pragma GCC unroll 4
            for (int c = 0; c < NV; ++c) acc[r][c] = _mm256_fmadd_ps(b, vv[c], acc[r][c]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) _mm256_storeu_ps(sums + static_cast<size_t>(r) * sumStride + 8 * c, acc[r][c]);
    }
}

// An instruction set's tiles: score tiles of 1..scoreRows queries (each over scoreKeys keys),
// weighted-sum tiles of 1..kValueRows queries × 1..valueVectors vectors of `width` columns, over
// chunks of valueKeys keys (0: all of them in one pass), on values in slices of valueSlice columns
// (0: the whole padded row).
struct TileKernels {
    int width;
    int scoreRows;
    int scoreKeys;
    int valueVectors;
    int valueKeys;
    int valueSlice;
    ScoreTile score[8];
    ValueTile value[kValueRows][4];
};

// AVX-512: chunks of 128 keys, whose values (32 KiB at head_dim 64) stay in L1 while every group of
// queries passes over them. AVX2: every key at once along each 16-column slice, whose rows are 64
// contiguous bytes (one core, one head of 1500 keys: the weighted sums at 97 against 78 GFLOP/s in
// chunks of 128 on whole rows, where a slice's rows 256 bytes apart crowd 16 of the L1's sets).
const TileKernels kAvx512 = {
    16, 8, 32, 4, 128, 0,
    {scoreTileAvx512<1>, scoreTileAvx512<2>, scoreTileAvx512<3>, scoreTileAvx512<4>, scoreTileAvx512<5>,
     scoreTileAvx512<6>, scoreTileAvx512<7>, scoreTileAvx512<8>},
    {{valueTileAvx512<1, 1>, valueTileAvx512<1, 2>, valueTileAvx512<1, 3>, valueTileAvx512<1, 4>},
     {valueTileAvx512<2, 1>, valueTileAvx512<2, 2>, valueTileAvx512<2, 3>, valueTileAvx512<2, 4>},
     {valueTileAvx512<3, 1>, valueTileAvx512<3, 2>, valueTileAvx512<3, 3>, valueTileAvx512<3, 4>},
     {valueTileAvx512<4, 1>, valueTileAvx512<4, 2>, valueTileAvx512<4, 3>, valueTileAvx512<4, 4>},
     {valueTileAvx512<5, 1>, valueTileAvx512<5, 2>, valueTileAvx512<5, 3>, valueTileAvx512<5, 4>},
     {valueTileAvx512<6, 1>, valueTileAvx512<6, 2>, valueTileAvx512<6, 3>, valueTileAvx512<6, 4>}},
};

const TileKernels kAvx2 = {
    8, 6, 16, 2, 0, 16,
    {scoreTileAvx2<1>, scoreTileAvx2<2>, scoreTileAvx2<3>, scoreTileAvx2<4>, scoreTileAvx2<5>, scoreTileAvx2<6>},
    {{valueTileAvx2<1, 1>, valueTileAvx2<1, 2>},
     {valueTileAvx2<2, 1>, valueTileAvx2<2, 2>},
     {valueTileAvx2<3, 1>, valueTileAvx2<3, 2>},
     {valueTileAvx2<4, 1>, valueTileAvx2<4, 2>},
     {valueTileAvx2<5, 1>, valueTileAvx2<5, 2>},
     {valueTileAvx2<6, 1>, valueTileAvx2<6, 2>}},
};

void attentionTileWith(const TileKernels& k, const float* q, size_t qStride, int rows, const TileHead& head,
                       float scale, bool causal, int firstVisible, float* scores, float* out, size_t outStride) {
    const size_t ks = head.keyStride, hd = static_cast<size_t>(head.headDim);
    // The block's queries side by side: q's rows are d floats apart, 4 KiB for medium's 1024,
    // and rows a power of two apart would share the L1's sets.
    thread_local std::vector<float> block;
    block.resize(static_cast<size_t>(rows) * hd);
    for (int r = 0; r < rows; ++r)
        std::copy_n(q + static_cast<size_t>(r) * qStride, hd, block.data() + static_cast<size_t>(r) * hd);
    // Scores: each chunk of 32 keys (headDim × 128 contiguous bytes) is read from L1 by every
    // group of queries in turn (AVX2: each half of it).
    for (size_t j = 0; j < ks; j += kScoreKeys) {
        const float* chunk = head.kt + j * hd;
        for (int part = 0; part < kScoreKeys; part += k.scoreKeys) {
            for (int r = 0; r < rows; r += k.scoreRows) {
                const int n = std::min(k.scoreRows, rows - r);
                k.score[n - 1](block.data() + static_cast<size_t>(r) * hd, hd, chunk + part, head.headDim, scale,
                               scores + static_cast<size_t>(r) * ks + j + static_cast<size_t>(part), ks);
            }
        }
    }
    float inv[kTileQueries];
    for (int r = 0; r < rows; ++r) {
        inv[r] = exponentials(scores + static_cast<size_t>(r) * ks, visibleOf(head, causal, firstVisible, r), head.keys);
    }
    // Weighted sums a chunk of keys at a time, then divided by the row sums.
    const size_t width = head.valueStride, tileColumns = static_cast<size_t>(k.width * k.valueVectors);
    const size_t slice = head.valueSlice, sliceFloats = head.keyStride * slice;
    thread_local std::vector<float> sums;
    sums.resize(static_cast<size_t>(rows) * width);
    const int longest = visibleOf(head, causal, firstVisible, rows - 1);
    const int chunk = k.valueKeys > 0 ? k.valueKeys : longest;
    for (int begin = 0; begin < longest; begin += chunk) {
        for (int r = 0; r < rows; r += kValueRows) {
            const int n = std::min(kValueRows, rows - r);
            const int end = std::min(begin + chunk, visibleOf(head, causal, firstVisible, r + n - 1));
            if (end <= begin) continue;  // causal: this group sees none of the chunk
            for (size_t col = 0; col < width; col += tileColumns) {
                const int vectors = static_cast<int>(std::min<size_t>(k.valueVectors, (width - col) / k.width));
                k.value[n - 1][vectors - 1](scores + static_cast<size_t>(r) * ks, ks, begin, end,
                                            head.v + col / slice * sliceFloats + col % slice, slice,
                                            sums.data() + static_cast<size_t>(r) * width + col, width, begin == 0);
            }
        }
    }
    for (int r = 0; r < rows; ++r) {
        const float* sum = sums.data() + static_cast<size_t>(r) * width;
        float* o = out + static_cast<size_t>(r) * outStride;
        for (size_t c = 0; c < hd; ++c) o[c] = sum[c] * inv[r];
    }
}

// Which tiles run: AVX-512's where present, else AVX2's (with FMA), else none (CpuBackend's GEMM
// path). HEARSAY_ATTENTION_TILES=0 asks for the GEMM path, =avx2 for the AVX2 tiles on a CPU with
// AVX-512 (so that the tests cover both on one machine).
const TileKernels* detectTileKernels() {
    const char* v = std::getenv("HEARSAY_ATTENTION_TILES");
    if (v && std::string_view(v) == "0") return nullptr;
    if (usingAvx512() && !(v && std::string_view(v) == "avx2")) return &kAvx512;
    __builtin_cpu_init();
    if (usingAvx2() && __builtin_cpu_supports("fma")) return &kAvx2;
    return nullptr;
}

const TileKernels* tileKernels() {
    static const TileKernels* kernels = detectTileKernels();
    return kernels;
}
#endif

} // namespace

size_t tileKeyStride(int keys) {
    return (static_cast<size_t>(std::max(keys, 0)) + kScoreKeys - 1) / kScoreKeys * kScoreKeys;
}

size_t tileValueStride(int headDim) {
    return (static_cast<size_t>(std::max(headDim, 0)) + 15) / 16 * 16;
}

size_t tileValueSlice(int headDim) {
#ifdef HEARSAY_SIMD_X86
    if (tileKernels() && tileKernels()->valueSlice > 0) return static_cast<size_t>(tileKernels()->valueSlice);
#endif
    return tileValueStride(headDim);
}

bool usingAttentionTiles() {
#ifdef HEARSAY_SIMD_X86
    return tileKernels() != nullptr;
#else
    return false;
#endif
}

void attentionTile(const float* q, size_t qStride, int rows, const TileHead& head, float scale, bool causal,
                   int firstVisible, float* scores, float* out, size_t outStride) {
    if (!usingAttentionTiles()) throw std::logic_error("attentionTile: the attention tiles need AVX-512F or AVX2");
#ifdef HEARSAY_SIMD_X86
    for (int first = 0; first < rows; first += kTileQueries) {
        const int n = std::min(kTileQueries, rows - first);
        attentionTileWith(*tileKernels(), q + static_cast<size_t>(first) * qStride, qStride, n, head, scale, causal,
                          firstVisible + first, scores, out + static_cast<size_t>(first) * outStride, outStride);
    }
#endif
}

} // namespace hearsay::simd
