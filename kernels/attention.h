// kernels/attention: fused multi-head attention, out = softmax(scale · q kᵀ [+ causal mask]) v,
// without writing the score matrix to memory (online softmax, as in FlashAttention).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace hearsay::cuda {

// One independent problem (a beam, or the encoder window); as hearsay::AttentionBatch.
struct AttentionSlice {
    int queryRow = 0;    // first row of this problem in q and out
    int queryCount = 0;  // 0: nothing to do
    size_t keyRow = 0;   // first row in k and v
    int keyCount = 0;    // ≥ 1; causal: ≥ queryCount (query j sees keyCount - queryCount + j + 1 keys)
    int offsetIndex = 0; // entry of AttentionShape's offset arrays for this slice
};

struct AttentionShape {
    const float* q = nullptr;   // [rows][qStride]
    const void* k = nullptr;    // [rows][kvStride], float32, or IEEE half when kvHalf
    const void* v = nullptr;    // [rows][kvStride], the same type as k
    bool kvHalf = false;        // k and v are half (a KV cache from Backend::allocateKv)
    float* out = nullptr;       // [rows][outStride]
    size_t qStride = 0, kvStride = 0, outStride = 0;  // in elements
    int heads = 0;
    int headDim = 0;            // 1..kMaxAttentionHeadDim; head h uses columns [h·headDim, (h+1)·headDim)
    float scale = 1.0f;
    bool causal = false;
    // Per-step values (device arrays read when the kernel runs; null: none): a slice uses
    // keyRow + keyRowOffsets[offsetIndex] and keyCount + keyCountOffsets[offsetIndex]. A slice
    // whose keys then fall outside [0, kvRows) (or are too few) gets NaN output rows.
    const int* keyRowOffsets = nullptr;
    const int* keyCountOffsets = nullptr;
    size_t kvRows = 0;          // rows of k and v
};

constexpr int kMaxAttentionHeadDim = 256;

// Enqueues the attention of every slice (checked by the caller) on `stream`.
void attention(const AttentionShape& shape, const AttentionSlice* slices, size_t sliceCount, cudaStream_t stream);

} // namespace hearsay::cuda
