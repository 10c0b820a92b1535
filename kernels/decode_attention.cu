// Split-key attention for few queries (see decode_attention.h). Kernel 1: one warp per (split of
// 32 keys, head, slice). The warp stages its 32 key rows in shared memory (coalesced; rows padded
// by one float so that lane l reading row l hits its own bank), scores key l against each query
// (held in shared memory), takes the warp's max and sum per query, and accumulates its keys'
// values (lane l owns dimensions l, l + 32, ...). It writes [max, sum, output] per query to the
// scratch. Kernel 2: one block per (head, slice) merges the splits each query sees.
#include "kernels/decode_attention.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

#include <math_constants.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hearsay::cuda {
namespace {

constexpr int kMaxQueries = kDecodeAttentionMaxQueries;
constexpr int kSplit = kDecodeAttentionSplitKeys;
static_assert(kSplit == 32, "one key per lane");
constexpr int kMaxSlices = 16;  // slices per launch; more are split over launches
constexpr int kMergeThreads = 128;

struct Launch {
    AttentionShape shape;
    float* scratch;
    int slices;
    int splits;
    int maxKeys;
    int queryRow[kMaxSlices];
    int queryCount[kMaxSlices];
    int keyCount[kMaxSlices];
    int offsetIndex[kMaxSlices];
    size_t keyRow[kMaxSlices];
};

// The record of (slice, head, split, query): [max, sum, output[headDim]].
__device__ __forceinline__ float* partial(const Launch& p, int slice, int head, int split, int query) {
    const size_t record = ((size_t(slice) * size_t(p.shape.heads) + size_t(head)) * size_t(p.splits) + size_t(split)) *
                              kMaxQueries +
                          size_t(query);
    return p.scratch + record * size_t(p.shape.headDim + 2);
}

// Slice s's first key row and key count with its per-step offsets; false when they leave k/v
// or exceed maxKeys (the merge then writes NaN rows).
__device__ __forceinline__ bool resolveKeys(const Launch& p, int s, long long& keyRow, int& keyCount) {
    const AttentionShape& a = p.shape;
    long long row = static_cast<long long>(p.keyRow[s]), count = p.keyCount[s];
    if (a.keyRowOffsets) row += a.keyRowOffsets[p.offsetIndex[s]];
    if (a.keyCountOffsets) count += a.keyCountOffsets[p.offsetIndex[s]];
    if (row < 0 || count < 1 || count > p.maxKeys || (a.causal && count < p.queryCount[s]) ||
        static_cast<unsigned long long>(row + count) > a.kvRows) {
        return false;
    }
    keyRow = row;
    keyCount = static_cast<int>(count);
    return true;
}

// Keys query qi of slice s sees (causal: query j of n sees keyCount - n + j + 1).
__device__ __forceinline__ int visibleKeys(const Launch& p, int s, int keyCount, int qi) {
    return p.shape.causal ? keyCount - p.queryCount[s] + qi + 1 : keyCount;
}

// kDims: output dimensions per lane (headDim ≤ 32 · kDims); KV: float or __half keys and values.
template <int kDims, class KV>
__global__ void __launch_bounds__(32) partialKernel(const __grid_constant__ Launch p) {
    extern __shared__ float shared[];
    const AttentionShape& a = p.shape;
    const int hd = a.headDim;
    const int split = blockIdx.x, head = blockIdx.y, s = blockIdx.z, lane = threadIdx.x;
    long long keyRow = 0;
    int keyCount = 0;
    if (!resolveKeys(p, s, keyRow, keyCount)) return;
    const int queries = p.queryCount[s];
    const int first = split * kSplit;
    const int lastKey = visibleKeys(p, s, keyCount, queries - 1);  // the most keys any query sees
    if (first >= lastKey) return;                                  // no query sees this split
    const int tileKeys = min(kSplit, lastKey - first);
    const size_t column = size_t(head) * size_t(hd);
    float* kTile = shared;                        // [kSplit][hd + 1]
    float* qTile = shared + kSplit * (hd + 1);    // [kMaxQueries][hd]

    const KV* keys = static_cast<const KV*>(a.k) + size_t(keyRow + first) * a.kvStride + column;
    for (int i = lane; i < kSplit * hd; i += 32) {
        const int r = i / hd, c = i - r * hd;
        kTile[r * (hd + 1) + c] = r < tileKeys ? loadFloat(keys + size_t(r) * a.kvStride + size_t(c)) : 0.0f;
    }
    for (int i = lane; i < kMaxQueries * hd; i += 32) {
        const int qi = i / hd, c = i - qi * hd;
        qTile[i] = qi < queries ? a.q[size_t(p.queryRow[s] + qi) * a.qStride + column + size_t(c)] : 0.0f;
    }
    __syncwarp();

    float score[kMaxQueries];
    keyScores(qTile, kTile + lane * (hd + 1), hd, score);

    float weight[kMaxQueries];
#pragma unroll
    for (int qi = 0; qi < kMaxQueries; ++qi) {
        weight[qi] = 0.0f;
        if (qi >= queries) continue;                                          // warp-uniform
        const int seen = min(visibleKeys(p, s, keyCount, qi) - first, kSplit);  // keys of this split qi sees
        if (seen <= 0) continue;                                              // warp-uniform
        const float scaled = lane < seen ? score[qi] * a.scale : -INFINITY;
        const float m = warpMax(scaled);
        weight[qi] = lane < seen ? expf(scaled - m) : 0.0f;
        const float sum = warpSum(weight[qi]);
        if (lane == 0) {
            float* record = partial(p, s, head, split, qi);
            record[0] = m;
            record[1] = sum;
        }
    }

    float acc[kMaxQueries][kDims];
#pragma unroll
    for (int qi = 0; qi < kMaxQueries; ++qi) {
#pragma unroll
        for (int i = 0; i < kDims; ++i) acc[qi][i] = 0.0f;
    }
    warpWeightedRows(static_cast<const KV*>(a.v) + size_t(keyRow + first) * a.kvStride + column, a.kvStride, tileKeys,
                     hd, weight, acc);
#pragma unroll
    for (int qi = 0; qi < kMaxQueries; ++qi) {
        if (qi >= queries || visibleKeys(p, s, keyCount, qi) <= first) continue;
        float* out = partial(p, s, head, split, qi) + 2;
#pragma unroll
        for (int i = 0; i < kDims; ++i) {
            const int d = lane + 32 * i;
            if (d < hd) out[d] = acc[qi][i];
        }
    }
}

// out = Σ_split output · e^(max - M) / Σ_split sum · e^(max - M) over the splits query qi sees.
__global__ void __launch_bounds__(kMergeThreads) mergeKernel(const __grid_constant__ Launch p) {
    const AttentionShape& a = p.shape;
    const int hd = a.headDim;
    const int head = blockIdx.x, s = blockIdx.y;
    const size_t column = size_t(head) * size_t(hd);
    long long keyRow = 0;
    int keyCount = 0;
    const bool valid = resolveKeys(p, s, keyRow, keyCount);
    for (int qi = 0; qi < p.queryCount[s]; ++qi) {
        float* out = a.out + size_t(p.queryRow[s] + qi) * a.outStride + column;
        if (!valid) {
            for (int d = threadIdx.x; d < hd; d += kMergeThreads) out[d] = CUDART_NAN_F;
            continue;
        }
        const int splits = (visibleKeys(p, s, keyCount, qi) + kSplit - 1) / kSplit;
        float m = -INFINITY;
        for (int sp = 0; sp < splits; ++sp) m = fmaxf(m, partial(p, s, head, sp, qi)[0]);
        float sum = 0.0f;
        for (int sp = 0; sp < splits; ++sp) {
            const float* record = partial(p, s, head, sp, qi);
            sum += record[1] * expf(record[0] - m);
        }
        for (int d = threadIdx.x; d < hd; d += kMergeThreads) {
            float o = 0.0f;
            for (int sp = 0; sp < splits; ++sp) {
                const float* record = partial(p, s, head, sp, qi);
                o += record[2 + d] * expf(record[0] - m);
            }
            out[d] = o / sum;
        }
    }
}

template <int kDims, class KV>
void launchPartial(const Launch& p, cudaStream_t stream) {
    const size_t bytes = sizeof(float) * (size_t(kSplit) * size_t(p.shape.headDim + 1) +
                                          size_t(kMaxQueries) * size_t(p.shape.headDim));
    const dim3 grid(unsigned(p.splits), unsigned(p.shape.heads), unsigned(p.slices));
    partialKernel<kDims, KV><<<grid, 32, bytes, stream>>>(p);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

template <class KV>
void launchPartialFor(const Launch& p, cudaStream_t stream) {
    const int hd = p.shape.headDim;
    if (hd <= 32) {
        launchPartial<1, KV>(p, stream);
    } else if (hd <= 64) {
        launchPartial<2, KV>(p, stream);
    } else {
        launchPartial<4, KV>(p, stream);
    }
}

void launch(const Launch& p, cudaStream_t stream) {
    if (p.shape.kvHalf) {
        launchPartialFor<__half>(p, stream);
    } else {
        launchPartialFor<float>(p, stream);
    }
    mergeKernel<<<dim3(unsigned(p.shape.heads), unsigned(p.slices)), kMergeThreads, 0, stream>>>(p);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace

size_t decodeAttentionScratchFloats(int slices, int heads, int headDim, int maxKeys) {
    return size_t(std::min(slices, kMaxSlices)) * size_t(heads) * size_t(decodeAttentionSplits(maxKeys)) *
           size_t(kMaxQueries) * size_t(headDim + 2);
}

void decodeAttention(const AttentionShape& shape, const AttentionSlice* slices, size_t sliceCount, int maxKeys,
                     float* scratch, cudaStream_t stream) {
    if (shape.headDim <= 0 || shape.headDim > kDecodeAttentionMaxHeadDim || shape.heads <= 0 || shape.heads > 65535 ||
        maxKeys <= 0) {
        throw std::invalid_argument("decodeAttention: head dimension " + std::to_string(shape.headDim) + ", " +
                                    std::to_string(shape.heads) + " heads or " + std::to_string(maxKeys) +
                                    " keys out of range");
    }
    Launch p{};
    p.shape = shape;
    p.scratch = scratch;
    p.splits = decodeAttentionSplits(maxKeys);
    p.maxKeys = maxKeys;
    for (size_t i = 0; i < sliceCount; ++i) {
        const AttentionSlice& slice = slices[i];
        if (slice.queryCount <= 0) continue;
        if (slice.queryCount > kMaxQueries) {
            throw std::invalid_argument("decodeAttention: " + std::to_string(slice.queryCount) + " queries in a slice (at most " +
                                        std::to_string(kMaxQueries) + ")");
        }
        p.queryRow[p.slices] = slice.queryRow;
        p.queryCount[p.slices] = slice.queryCount;
        p.keyRow[p.slices] = slice.keyRow;
        p.keyCount[p.slices] = slice.keyCount;
        p.offsetIndex[p.slices] = slice.offsetIndex;
        if (++p.slices == kMaxSlices) {
            launch(p, stream);
            p.slices = 0;
        }
    }
    if (p.slices > 0) launch(p, stream);
}

} // namespace hearsay::cuda
