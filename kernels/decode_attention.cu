// Split-key attention for few queries (see decode_attention.h). Kernel 1: one warp per (split of
// 32 keys, head, slice). The warp stages its 32 key rows and value rows and the slice's queries in
// shared memory (keys' rows padded by one float so that lane l reading row l hits its own bank),
// issuing several loads per lane before it stores any, 16 bytes each where the cache's layout
// allows, so that their latencies overlap (with one load in flight per lane the warp spent most of
// its time waiting: 27 us for tiny's 1500 cross keys on an H200, against 0.5 us of bytes). It
// scores key l against each query, takes the warp's max and sum per query, and accumulates its
// keys' values (lane l owns dimensions l, l + 32, ...). It writes [max, sum, output] per query to
// the scratch. Kernel 2: one block per (head, slice) merges the splits each query sees, the
// splits' maxima and sums shared out over the block's threads and the outputs over dimensions
// and groups of splits.
#include "kernels/decode_attention.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

#include <math_constants.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hearsay::cuda {
namespace {

constexpr int kMaxQueries = kDecodeAttentionMaxQueries;
constexpr int kSplit = kDecodeAttentionSplitKeys;
static_assert(kSplit == 32, "one key per lane");
constexpr int kMaxSlices = 16;  // slices per launch; more are split over launches
constexpr int kMergeThreads = 128;
static_assert(kMergeThreads >= kDecodeAttentionMaxHeadDim, "a merge thread per output dimension");
constexpr int kLoadBatch = 8;  // loads in flight per lane while staging rows

struct Launch {
    AttentionShape shape;
    float* scratch;
    int slices;
    int splits;
    int maxKeys;
    bool vectorKv;  // k and v read 16 bytes at a time (kvVectorizable)
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

// Shared memory of a merge over `splits` splits: the reduction's 32 floats, a sum per thread, a
// weight per split.
inline size_t mergeSharedBytes(int splits) { return sizeof(float) * (32 + size_t(kMergeThreads) + size_t(splits)); }

// Whether k and v can be read 16 bytes at a time: both aligned to 16 bytes, and a row's stride
// and a head's width whole multiples of 16 bytes (so every row of every head starts aligned).
inline bool kvVectorizable(const AttentionShape& a) {
    const size_t element = a.kvHalf ? 2 : 4;
    return reinterpret_cast<uintptr_t>(a.k) % 16 == 0 && reinterpret_cast<uintptr_t>(a.v) % 16 == 0 &&
           (a.kvStride * element) % 16 == 0 && (size_t(a.headDim) * element) % 16 == 0;
}

// The elements of 16 loaded bytes as floats.
__device__ __forceinline__ void unpack(const uint4& bytes, float (&out)[4]) { memcpy(out, &bytes, 16); }
__device__ __forceinline__ void unpack(const uint4& bytes, float (&out)[8]) { halvesToFloats(bytes, out); }

// dst[r · dstStride + c] = src[r · srcStride + c] as float, for r < rows and c < cols; rows from
// validRows on are zeros and not read. The warp's lanes each issue kLoadBatch loads before they
// store any; `vector`: 16-byte loads (src and srcStride 16-byte aligned, cols a multiple of the
// elements in 16 bytes).
template <class T>
__device__ __forceinline__ void stageRows(float* dst, int dstStride, const T* src, size_t srcStride, int rows,
                                          int validRows, int cols, bool vector) {
    const int lane = threadIdx.x % 32;
    if (vector) {
        constexpr int kPer = 16 / int(sizeof(T));
        const int perRow = cols / kPer, total = rows * perRow;
        for (int base = 0; base < total; base += 32 * kLoadBatch) {
            uint4 chunk[kLoadBatch];
#pragma unroll
            for (int b = 0; b < kLoadBatch; ++b) {
                const int i = base + lane + 32 * b, r = i / perRow, c = i - r * perRow;
                chunk[b] = i < total && r < validRows
                               ? *reinterpret_cast<const uint4*>(src + size_t(r) * srcStride + size_t(c) * kPer)
                               : make_uint4(0u, 0u, 0u, 0u);
            }
#pragma unroll
            for (int b = 0; b < kLoadBatch; ++b) {
                const int i = base + lane + 32 * b, r = i / perRow, c = i - r * perRow;
                if (i >= total) continue;
                float values[kPer];
                unpack(chunk[b], values);
#pragma unroll
                for (int e = 0; e < kPer; ++e) dst[r * dstStride + c * kPer + e] = values[e];
            }
        }
        return;
    }
    constexpr int kBatch = 2 * kLoadBatch;
    const int total = rows * cols;
    for (int base = 0; base < total; base += 32 * kBatch) {
        float values[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int i = base + lane + 32 * b, r = i / cols, c = i - r * cols;
            values[b] = i < total && r < validRows ? loadFloat(src + size_t(r) * srcStride + size_t(c)) : 0.0f;
        }
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int i = base + lane + 32 * b, r = i / cols, c = i - r * cols;
            if (i < total) dst[r * dstStride + c] = values[b];
        }
    }
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
    float* vTile = kTile + kSplit * (hd + 1);     // [kSplit][hd]
    float* qTile = vTile + kSplit * hd;           // [kMaxQueries][hd]

    const size_t firstRow = size_t(keyRow + first) * a.kvStride + column;
    stageRows(kTile, hd + 1, static_cast<const KV*>(a.k) + firstRow, a.kvStride, kSplit, tileKeys, hd, p.vectorKv);
    stageRows(vTile, hd, static_cast<const KV*>(a.v) + firstRow, a.kvStride, kSplit, tileKeys, hd, p.vectorKv);
    stageRows(qTile, hd, a.q + size_t(p.queryRow[s]) * a.qStride + column, a.qStride, kMaxQueries, queries, hd, false);
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
    warpWeightedRows(static_cast<const float*>(vTile), size_t(hd), tileKeys, hd, weight, acc);
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
// The block's threads share out the splits for M and the weights e^(max - M) (kept in shared
// memory), then thread t sums dimension t % hd over every (kMergeThreads / hd)-th split from
// t / hd on, several loads in flight, and the groups' sums are added at the end.
__global__ void __launch_bounds__(kMergeThreads) mergeKernel(const __grid_constant__ Launch p) {
    extern __shared__ float shared[];
    const AttentionShape& a = p.shape;
    const int hd = a.headDim;
    const int head = blockIdx.x, s = blockIdx.y, t = threadIdx.x;
    float* reduction = shared;                       // [32]
    float* groupSums = reduction + 32;               // [kMergeThreads]
    float* weights = groupSums + kMergeThreads;      // [splits]
    const size_t column = size_t(head) * size_t(hd);
    const int groups = kMergeThreads / hd, group = t / hd, d = t - group * hd;
    long long keyRow = 0;
    int keyCount = 0;
    const bool valid = resolveKeys(p, s, keyRow, keyCount);
    for (int qi = 0; qi < p.queryCount[s]; ++qi) {
        float* out = a.out + size_t(p.queryRow[s] + qi) * a.outStride + column;
        if (!valid) {
            for (int i = t; i < hd; i += kMergeThreads) out[i] = CUDART_NAN_F;
            continue;
        }
        const int splits = (visibleKeys(p, s, keyCount, qi) + kSplit - 1) / kSplit;
        float m = -INFINITY;
        for (int sp = t; sp < splits; sp += kMergeThreads) m = fmaxf(m, partial(p, s, head, sp, qi)[0]);
        m = blockMax(m, reduction);
        float sum = 0.0f;
        for (int sp = t; sp < splits; sp += kMergeThreads) {
            const float* record = partial(p, s, head, sp, qi);
            const float w = expf(record[0] - m);
            weights[sp] = w;
            sum += record[1] * w;
        }
        sum = blockSum(sum, reduction);  // its barriers also publish weights[]
        float o = 0.0f;
        if (group < groups) {
#pragma unroll 8
            for (int sp = group; sp < splits; sp += groups) o += partial(p, s, head, sp, qi)[2 + d] * weights[sp];
            groupSums[t] = o;
        }
        __syncthreads();
        if (t < hd) {
            float total = 0.0f;
            for (int g = 0; g < groups; ++g) total += groupSums[g * hd + t];
            out[t] = total / sum;
        }
        __syncthreads();  // weights[] and groupSums[] are rewritten for the next query
    }
}

template <int kDims, class KV>
void launchPartial(const Launch& p, cudaStream_t stream) {
    const size_t bytes = sizeof(float) * (size_t(kSplit) * size_t(2 * p.shape.headDim + 1) +
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
    mergeKernel<<<dim3(unsigned(p.shape.heads), unsigned(p.slices)), kMergeThreads, mergeSharedBytes(p.splits), stream>>>(p);
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
    p.vectorKv = kvVectorizable(shape);
    if (mergeSharedBytes(p.splits) > 48 * 1024) {
        throw std::invalid_argument("decodeAttention: " + std::to_string(maxKeys) + " keys are more than one merge can hold");
    }
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
