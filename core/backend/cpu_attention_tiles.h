// One head's attention for a block of queries in register tiles (AVX-512, or AVX2): the scores of the
// block against every key, their exponentials, and the weighted sum of the values, all from one
// layout of the head's keys (transposed) and values made once per head. The GEMM path it
// replaces packed the keys, the values and the score block again for every block of queries
// (OpenBLAS's copies were a quarter of the encoder's attention time, RESULTS.md run 12), and
// divided every score by the row's sum; here the sum divides the head_dim outputs instead.
#pragma once

#include <cstddef>

namespace hearsay::simd {

// Queries per block: the block's scores (kTileQueries × keys floats) stay in the core's L2.
constexpr int kTileQueries = 24;

// One head's keys and values as attentionTile() reads them (CpuBackend lays them out): the keys
// transposed in chunks of 32, kt[tileKeyIndex(i, c, headDim)] = k_i[c] for c < headDim (each
// chunk's headDim × 32 floats contiguous, zero for keys from `keys` to keyStride); the values in
// slices of valueSlice columns, v[tileValueIndex(i, c, keyStride, valueSlice)] = v_i[c] (each
// slice's keyStride × valueSlice floats contiguous), zero from headDim to valueStride.
struct TileHead {
    const float* kt = nullptr;
    const float* v = nullptr;
    int keys = 0;
    int headDim = 0;
    size_t keyStride = 0;    // tileKeyStride(keys)
    size_t valueStride = 0;  // tileValueStride(headDim)
    size_t valueSlice = 0;   // tileValueSlice(headDim)
};

size_t tileKeyStride(int keys);      // keys rounded up to 32
inline size_t tileKeyIndex(size_t key, size_t column, size_t headDim) {
    return key / 32 * 32 * headDim + column * 32 + key % 32;
}
size_t tileValueStride(int headDim); // headDim rounded up to 16
// Columns per slice of the values: the whole padded row for the AVX-512 tiles (64 columns a tile);
// 16 for the AVX2 tiles, whose 16 columns then lie contiguous over all the keys instead of 64
// bytes of every 256-byte row (RESULTS.md, "CPU run 25").
size_t tileValueSlice(int headDim);
inline size_t tileValueIndex(size_t key, size_t column, size_t keyStride, size_t slice) {
    return column / slice * keyStride * slice + key * slice + column % slice;
}

// True where attentionTile() runs: AVX-512F, or AVX2 with FMA, unless HEARSAY_ATTENTION_TILES=0
// (then CpuBackend takes its GEMM path); HEARSAY_ATTENTION_TILES=avx2 takes the AVX2 tiles on a
// CPU with AVX-512 too.
bool usingAttentionTiles();

// For each query r < rows (at q + r·qStride, headDim floats): out + r·outStride =
// softmax(scale · q_r · k_iᵀ over keys i < visible_r) · v, visible_r = causal ? firstVisible + r :
// keys (1 ≤ visible_r ≤ keys), kTileQueries queries at a time; scores holds min(rows,
// kTileQueries) × keyStride floats. Throws std::logic_error where usingAttentionTiles() is false
// (CpuBackend then takes its GEMM path).
void attentionTile(const float* q, size_t qStride, int rows, const TileHead& head, float scale, bool causal,
                   int firstVisible, float* scores, float* out, size_t outStride);

} // namespace hearsay::simd
