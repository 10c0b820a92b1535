// kernels/decode_attention: attention for slices of at most 8 queries (a decode step: one query
// per beam, or every beam's row against the shared cross keys), split over the keys as in
// flash-decoding. A step has too few queries to fill a GPU, so instead of one block per (slice,
// head) walking all 1500 cross keys, one warp per (slice, head, 32 keys) scores its keys, and a
// second kernel merges the partial maxima, sums and outputs. fp32 throughout; the same result
// as kernels/attention up to the order of the sums.
#pragma once

#include "kernels/attention.h"

#include <cstddef>

namespace hearsay::cuda {

constexpr int kDecodeAttentionMaxQueries = 8;
constexpr int kDecodeAttentionMaxHeadDim = 128;
constexpr int kDecodeAttentionSplitKeys = 32;  // keys per warp (one split)

// Whether a slice of `queryCount` queries can run here (head dimension ≤ 128 checked separately).
inline bool decodeAttentionApplies(int headDim, int queryCount) {
    return headDim <= kDecodeAttentionMaxHeadDim && queryCount <= kDecodeAttentionMaxQueries;
}

// Splits per (slice, head) for slices of at most `maxKeys` keys.
inline int decodeAttentionSplits(int maxKeys) {
    return (maxKeys + kDecodeAttentionSplitKeys - 1) / kDecodeAttentionSplitKeys;
}

// Floats of partial results attention over `slices` slices needs (see decodeAttention).
size_t decodeAttentionScratchFloats(int slices, int heads, int headDim, int maxKeys);

// Enqueues the attention of every slice (each ≤ 8 queries; checked by the caller, as for
// attention()). `maxKeys` bounds every slice's key count after its per-step offset (keys past
// it are not read: the caller passes the capacity the offsets cannot exceed); `scratch` holds
// decodeAttentionScratchFloats(min(sliceCount, 16), heads, headDim, maxKeys) floats. A slice
// whose keys fall outside [0, kvRows) or exceed maxKeys gets NaN rows, as in attention().
void decodeAttention(const AttentionShape& shape, const AttentionSlice* slices, size_t sliceCount, int maxKeys,
                     float* scratch, cudaStream_t stream);

} // namespace hearsay::cuda
