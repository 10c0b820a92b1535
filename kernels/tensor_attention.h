// kernels/tensor_attention: attention on tensor cores for the encoder-sized problems (many
// queries, head dimension 64, no mask, no per-step offsets): the same result as
// kernels/attention within fp16 rounding. q·kᵀ and p·v are fp16 products with fp32
// accumulation (WMMA 16×16×16); the online softmax runs in fp32. No score matrix in memory.
#pragma once

#include "kernels/attention.h"

namespace hearsay::cuda {

constexpr int kTensorAttentionHeadDim = 64;  // every Whisper size: d / heads = 64
constexpr int kTensorAttentionMinQueries = 16;

// Whether `shape` suits the kernel: head dimension 64, not causal, no per-step offsets, q, k and
// v 16-byte aligned with strides that are multiples of 4 floats. (Slices with fewer than
// kTensorAttentionMinQueries queries are better served by kernels/attention.)
bool tensorAttentionApplies(const AttentionShape& shape);

// Enqueues the attention of one slice (checked by the caller, as for attention()).
void tensorAttention(const AttentionShape& shape, const AttentionSlice& slice, cudaStream_t stream);

} // namespace hearsay::cuda
