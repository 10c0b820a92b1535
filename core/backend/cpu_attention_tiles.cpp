// attentionTile(): scores in tiles of up to 8 queries × 32 keys (16 accumulators, the queries
// broadcast, the transposed keys loaded two vectors per head_dim column), the row's exponentials
// in place (expShifted), then the weighted sum in tiles of up to 6 queries × 64 output columns
// (24 accumulators, each value row loaded once per 6 queries), scaled by 1/Σ at the end.
#include "core/backend/cpu_attention_tiles.h"

#include "core/backend/cpu_vector_math.h"
#include "core/backend/x86_simd.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace hearsay::simd {
namespace {

constexpr int kScoreRows = 8;   // queries per score tile
constexpr int kScoreKeys = 32;  // keys per score tile
constexpr int kValueRows = 6;   // queries per weighted-sum tile
constexpr int kValueVectors = 4;  // 16-float vectors of output columns per weighted-sum tile

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

#define HEARSAY_TILE_TARGET __attribute__((target("avx512f")))

// s[r][0..32) = scale · q_r · kt[.][0..32), r < R.
template <int R>
HEARSAY_TILE_TARGET void scoreTile(const float* q, size_t qStride, const float* kt, size_t keyStride, int hd,
                                   float scale, float* s, size_t sStride) {
    __m512 a0[R], a1[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) a0[r] = a1[r] = _mm512_setzero_ps();
    for (int c = 0; c < hd; ++c) {
        const float* k = kt + static_cast<size_t>(c) * keyStride;
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

// out[r][0..cols) = inv[r] · Σ_{i<n} p[r][i] · v[i][0..cols), r < R, cols ≤ 16·NV.
template <int R, int NV>
HEARSAY_TILE_TARGET void valueTile(const float* p, size_t pStride, int n, const float* v, size_t valueStride,
                                   const float* inv, float* out, size_t outStride, int cols) {
    __m512 acc[R][NV];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) acc[r][c] = _mm512_setzero_ps();
    }
    for (int i = 0; i < n; ++i) {
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
        const __m512 sc = _mm512_set1_ps(inv[r]);
        float* o = out + static_cast<size_t>(r) * outStride;
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) {
            const int left = cols - 16 * c;
            if (left >= 16) {
                _mm512_storeu_ps(o + 16 * c, _mm512_mul_ps(acc[r][c], sc));
            } else if (left > 0) {
                const __mmask16 m = static_cast<__mmask16>((1u << left) - 1u);
                _mm512_mask_storeu_ps(o + 16 * c, m, _mm512_mul_ps(acc[r][c], sc));
            }
        }
    }
}

using ScoreTile = void (*)(const float*, size_t, const float*, size_t, int, float, float*, size_t);
using ValueTile = void (*)(const float*, size_t, int, const float*, size_t, const float*, float*, size_t, int);

template <int R>
ValueTile valueTileFor(int vectors) {
    switch (vectors) {
    case 1: return valueTile<R, 1>;
    case 2: return valueTile<R, 2>;
    case 3: return valueTile<R, 3>;
    default: return valueTile<R, 4>;
    }
}

ValueTile valueTileFor(int rows, int vectors) {
    switch (rows) {
    case 1: return valueTileFor<1>(vectors);
    case 2: return valueTileFor<2>(vectors);
    case 3: return valueTileFor<3>(vectors);
    case 4: return valueTileFor<4>(vectors);
    case 5: return valueTileFor<5>(vectors);
    default: return valueTileFor<6>(vectors);
    }
}

constexpr ScoreTile kScoreTiles[kScoreRows] = {scoreTile<1>, scoreTile<2>, scoreTile<3>, scoreTile<4>,
                                               scoreTile<5>, scoreTile<6>, scoreTile<7>, scoreTile<8>};

void attentionTileAvx512(const float* q, size_t qStride, int rows, const TileHead& head, float scale, bool causal,
                         int firstVisible, float* scores, float* out, size_t outStride) {
    const size_t ks = head.keyStride;
    // Scores: each 32-key column of the transposed keys (headDim × 128 bytes) is read from L1
    // by every group of queries in turn.
    for (size_t j = 0; j < ks; j += kScoreKeys) {
        for (int r = 0; r < rows; r += kScoreRows) {
            const int n = std::min(kScoreRows, rows - r);
            kScoreTiles[n - 1](q + static_cast<size_t>(r) * qStride, qStride, head.kt + j, ks, head.headDim, scale,
                               scores + static_cast<size_t>(r) * ks + j, ks);
        }
    }
    float inv[kTileQueries];
    for (int r = 0; r < rows; ++r) {
        inv[r] = exponentials(scores + static_cast<size_t>(r) * ks, visibleOf(head, causal, firstVisible, r), head.keys);
    }
    const int width = static_cast<int>(head.valueStride);
    for (int r = 0; r < rows; r += kValueRows) {
        const int n = std::min(kValueRows, rows - r);
        const int keys = visibleOf(head, causal, firstVisible, r + n - 1);  // the group's longest row
        for (int col = 0; col < width; col += 16 * kValueVectors) {
            const int vectors = std::min(kValueVectors, (width - col) / 16);
            valueTileFor(n, vectors)(scores + static_cast<size_t>(r) * ks, ks, keys, head.v + col, head.valueStride,
                                     inv + r, out + static_cast<size_t>(r) * outStride + static_cast<size_t>(col),
                                     outStride, head.headDim - col);
        }
    }
}
#endif

} // namespace

size_t tileKeyStride(int keys) {
    return (static_cast<size_t>(std::max(keys, 0)) + kScoreKeys - 1) / kScoreKeys * kScoreKeys;
}

size_t tileValueStride(int headDim) {
    return (static_cast<size_t>(std::max(headDim, 0)) + 15) / 16 * 16;
}

bool usingAttentionTiles() {
    static const bool on = [] {
        if (const char* v = std::getenv("HEARSAY_ATTENTION_TILES"); v && std::string_view(v) == "0") return false;
#ifdef HEARSAY_SIMD_X86
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
#else
        return false;
#endif
    }();
    return on;
}

void attentionTile(const float* q, size_t qStride, int rows, const TileHead& head, float scale, bool causal,
                   int firstVisible, float* scores, float* out, size_t outStride) {
    if (!usingAttentionTiles()) throw std::logic_error("attentionTile: the attention tiles need AVX-512F");
#ifdef HEARSAY_SIMD_X86
    for (int first = 0; first < rows; first += kTileQueries) {
        const int n = std::min(kTileQueries, rows - first);
        attentionTileAvx512(q + static_cast<size_t>(first) * qStride, qStride, n, head, scale, causal, firstVisible + first,
                            scores, out + static_cast<size_t>(first) * outStride, outStride);
    }
#endif
}

} // namespace hearsay::simd
