// attentionTile(): scores in tiles of up to 8 queries × 32 keys (16 accumulators, the queries
// broadcast, the transposed keys loaded two vectors per head_dim column), the row's exponentials
// in place (expShifted), then the weighted sum in tiles of up to 6 queries × 64 output columns
// (24 accumulators) over chunks of 128 keys whose values stay in L1, scaled by 1/Σ at the end.
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

constexpr int kScoreRows = 8;   // queries per score tile
constexpr int kScoreKeys = 32;  // keys per score tile
constexpr int kValueRows = 6;   // queries per weighted-sum tile
constexpr int kValueVectors = 4;  // 16-float vectors of output columns per weighted-sum tile
constexpr int kValueKeys = 128;   // keys per chunk of the weighted sums

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

// s[r][0..32) = scale · q_r · the 32 keys of one chunk of kt (kt[c·32 + i] = k_i[c]), r < R.
template <int R>
HEARSAY_TILE_TARGET void scoreTile(const float* q, size_t qStride, const float* kt, int hd, float scale, float* s,
                                   size_t sStride) {
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

// sums[r][0..16·NV) (+)= Σ_{begin≤i<end} p[r][i] · v[i][0..16·NV), r < R: set on the first
// chunk of keys, added to on the others.
template <int R, int NV>
HEARSAY_TILE_TARGET void valueTile(const float* p, size_t pStride, int begin, int end, const float* v,
                                   size_t valueStride, float* sums, size_t sumStride, bool first) {
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

using ScoreTile = void (*)(const float*, size_t, const float*, int, float, float*, size_t);
using ValueTile = void (*)(const float*, size_t, int, int, const float*, size_t, float*, size_t, bool);

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
    const size_t ks = head.keyStride, hd = static_cast<size_t>(head.headDim);
    // The block's queries side by side: q's rows are d floats apart, 4 KiB for medium's 1024,
    // and rows a power of two apart would share the L1's sets.
    thread_local std::vector<float> block;
    block.resize(static_cast<size_t>(rows) * hd);
    for (int r = 0; r < rows; ++r) std::copy_n(q + static_cast<size_t>(r) * qStride, hd, block.data() + static_cast<size_t>(r) * hd);
    // Scores: each chunk of 32 keys (headDim × 128 contiguous bytes) is read from L1 by every
    // group of queries in turn.
    for (size_t j = 0; j < ks; j += kScoreKeys) {
        const float* chunk = head.kt + j * hd;
        for (int r = 0; r < rows; r += kScoreRows) {
            const int n = std::min(kScoreRows, rows - r);
            kScoreTiles[n - 1](block.data() + static_cast<size_t>(r) * hd, hd, chunk, head.headDim, scale,
                               scores + static_cast<size_t>(r) * ks + j, ks);
        }
    }
    float inv[kTileQueries];
    for (int r = 0; r < rows; ++r) {
        inv[r] = exponentials(scores + static_cast<size_t>(r) * ks, visibleOf(head, causal, firstVisible, r), head.keys);
    }
    // Weighted sums a chunk of kValueKeys keys at a time (their values, 32 KiB at head_dim 64,
    // stay in L1 while every group of queries passes over them), then divided by the row sums.
    const size_t width = head.valueStride;
    thread_local std::vector<float> sums;
    sums.resize(static_cast<size_t>(rows) * width);
    const int longest = visibleOf(head, causal, firstVisible, rows - 1);
    for (int begin = 0; begin < longest; begin += kValueKeys) {
        for (int r = 0; r < rows; r += kValueRows) {
            const int n = std::min(kValueRows, rows - r);
            const int end = std::min(begin + kValueKeys, visibleOf(head, causal, firstVisible, r + n - 1));
            if (end <= begin) continue;  // causal: this group sees none of the chunk
            for (size_t col = 0; col < width; col += 16 * kValueVectors) {
                const int vectors = static_cast<int>(std::min<size_t>(kValueVectors, (width - col) / 16));
                valueTileFor(n, vectors)(scores + static_cast<size_t>(r) * ks, ks, begin, end, head.v + col, width,
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
        return usingAvx512();
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
