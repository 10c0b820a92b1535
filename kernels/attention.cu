// Fused attention (see attention.h). One block of 4 warps per (slice, head, tile of 8 queries).
// The warps split the keys: warp w takes key tiles w, w+4, ... of 32 keys; lane l scores key l
// of its tile against the 8 queries (held in shared memory), the warp updates a running max,
// sum and output per query (online softmax), and at the end the 4 partial results are merged
// through shared memory. Scores never leave registers. Slices travel as kernel parameters.
#include "kernels/attention.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

#include <math_constants.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hearsay::cuda {
namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kTileQueries = 8;
constexpr int kMaxSlices = 16;  // slices per launch; more are split over launches

struct AttentionLaunch {
    AttentionShape shape;
    int slices;
    int queryRow[kMaxSlices];
    int queryCount[kMaxSlices];
    int keyCount[kMaxSlices];
    int offsetIndex[kMaxSlices];
    size_t keyRow[kMaxSlices];
    int firstTile[kMaxSlices + 1];  // prefix sum of the slices' query tiles
};

// Shared memory: the query tile, then each warp's partial outputs, maxima and sums.
size_t sharedBytes(int headDim) {
    return sizeof(float) * (size_t(kTileQueries) * headDim + size_t(kWarps) * kTileQueries * headDim +
                            2 * size_t(kWarps) * kTileQueries);
}

// kDims: output dimensions per lane (headDim ≤ 32 · kDims); KV: float or __half keys and values.
template <int kDims, class KV>
__global__ void __launch_bounds__(kThreads) attentionKernel(const __grid_constant__ AttentionLaunch p) {
    extern __shared__ float shared[];
    const AttentionShape& a = p.shape;
    const int hd = a.headDim;
    float* qTile = shared;                                      // [kTileQueries][hd]
    float* partialOut = qTile + kTileQueries * hd;              // [kWarps][kTileQueries][hd]
    float* partialMax = partialOut + kWarps * kTileQueries * hd; // [kWarps][kTileQueries]
    float* partialSum = partialMax + kWarps * kTileQueries;     // [kWarps][kTileQueries]

    const int tile = blockIdx.x, head = blockIdx.y;
    int s = 0;
    while (s + 1 < p.slices && tile >= p.firstTile[s + 1]) ++s;
    const int firstQuery = (tile - p.firstTile[s]) * kTileQueries;  // within the slice
    const int queries = min(kTileQueries, p.queryCount[s] - firstQuery);
    const size_t column = size_t(head) * size_t(hd);
    const size_t firstRow = size_t(p.queryRow[s]) + size_t(firstQuery);
    // Keys of this slice, with the per-step offsets read now. Block-uniform, so an invalid slice
    // returns before any barrier: its output rows become NaN and no key outside k/v is read.
    long long keyRow = static_cast<long long>(p.keyRow[s]), keys64 = p.keyCount[s];
    if (a.keyRowOffsets) keyRow += a.keyRowOffsets[p.offsetIndex[s]];
    if (a.keyCountOffsets) keys64 += a.keyCountOffsets[p.offsetIndex[s]];
    if (keyRow < 0 || keys64 < 1 || (a.causal && keys64 < p.queryCount[s]) ||
        static_cast<unsigned long long>(keyRow + keys64) > a.kvRows) {
        for (int i = threadIdx.x; i < queries * hd; i += kThreads) {
            a.out[(firstRow + i / hd) * a.outStride + column + i % hd] = CUDART_NAN_F;
        }
        return;
    }
    const int keyCount = static_cast<int>(keys64);

    for (int i = threadIdx.x; i < kTileQueries * hd; i += kThreads) {
        const int qi = i / hd, d = i % hd;
        qTile[i] = qi < queries ? a.q[(firstRow + qi) * a.qStride + column + d] : 0.0f;
    }
    __syncthreads();

    // Keys query qi of the tile sees.
    const int causalShift = a.causal ? keyCount - p.queryCount[s] + firstQuery + 1 : 0;
    auto visible = [&](int qi) { return a.causal ? causalShift + qi : keyCount; };
    const int lastKey = visible(queries - 1);  // the most keys any query of the tile sees

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float runMax[kTileQueries], runSum[kTileQueries], acc[kTileQueries][kDims];
#pragma unroll
    for (int qi = 0; qi < kTileQueries; ++qi) {
        runMax[qi] = -INFINITY;
        runSum[qi] = 0.0f;
#pragma unroll
        for (int i = 0; i < kDims; ++i) acc[qi][i] = 0.0f;
    }
    const KV* keys = static_cast<const KV*>(a.k) + size_t(keyRow) * a.kvStride + column;
    const KV* values = static_cast<const KV*>(a.v) + size_t(keyRow) * a.kvStride + column;

    for (int first = warp * 32; first < lastKey; first += kWarps * 32) {
        // Lane l: scores of key first + l against every query of the tile.
        const int key = first + lane;
        float score[kTileQueries];
        // Lanes past the last key score that key again; their weights are masked below.
        keyScores(qTile, keys + size_t(min(key, lastKey - 1)) * a.kvStride, hd, score);
        float weight[kTileQueries];
#pragma unroll
        for (int qi = 0; qi < kTileQueries; ++qi) {
            weight[qi] = 0.0f;
            const int seen = qi < queries ? visible(qi) - first : 0;  // keys of this tile query qi sees
            if (seen <= 0) continue;                                   // warp-uniform
            const float scaled = lane < seen ? score[qi] * a.scale : -INFINITY;
            const float newMax = fmaxf(runMax[qi], warpMax(scaled));
            const float correction = expf(runMax[qi] - newMax);  // 0 on the first tile
            weight[qi] = lane < seen ? expf(scaled - newMax) : 0.0f;
            runSum[qi] = runSum[qi] * correction + warpSum(weight[qi]);
            runMax[qi] = newMax;
#pragma unroll
            for (int i = 0; i < kDims; ++i) acc[qi][i] *= correction;
        }
        // out += Σ_j weight_j · v_j over the tile's keys; lane l owns dimensions l, l + 32, ...
        warpWeightedRows(values + size_t(first) * a.kvStride, a.kvStride, min(32, lastKey - first), hd, weight, acc);
    }

    // Merge the warps: out = Σ_w acc_w e^(max_w - M) / Σ_w sum_w e^(max_w - M).
#pragma unroll
    for (int qi = 0; qi < kTileQueries; ++qi) {
        if (lane == 0) {
            partialMax[warp * kTileQueries + qi] = runMax[qi];
            partialSum[warp * kTileQueries + qi] = runSum[qi];
        }
#pragma unroll
        for (int i = 0; i < kDims; ++i) {
            const int d = lane + 32 * i;
            if (d < hd) partialOut[(warp * kTileQueries + qi) * hd + d] = acc[qi][i];
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < queries * hd; i += kThreads) {
        const int qi = i / hd, d = i % hd;
        float m = -INFINITY;
        for (int w = 0; w < kWarps; ++w) m = fmaxf(m, partialMax[w * kTileQueries + qi]);
        float sum = 0.0f, out = 0.0f;
        for (int w = 0; w < kWarps; ++w) {
            const float mw = partialMax[w * kTileQueries + qi];
            if (mw == -INFINITY) continue;  // this warp saw no key of this query
            const float f = expf(mw - m);
            sum += partialSum[w * kTileQueries + qi] * f;
            out += partialOut[(w * kTileQueries + qi) * hd + d] * f;
        }
        a.out[(firstRow + qi) * a.outStride + column + d] = out / sum;
    }
}

template <int kDims, class KV>
void launchTyped(const AttentionLaunch& p, cudaStream_t stream) {
    const size_t bytes = sharedBytes(p.shape.headDim);
    const dim3 grid(unsigned(p.firstTile[p.slices]), unsigned(p.shape.heads));
    if (grid.x == 0) return;
    attentionKernel<kDims, KV><<<grid, kThreads, bytes, stream>>>(p);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

template <int kDims>
void launch(const AttentionLaunch& p, cudaStream_t stream) {
    if (p.shape.kvHalf) {
        launchTyped<kDims, __half>(p, stream);
    } else {
        launchTyped<kDims, float>(p, stream);
    }
}

void launchFor(const AttentionLaunch& p, cudaStream_t stream) {
    const int hd = p.shape.headDim;
    if (hd <= 32) return launch<1>(p, stream);
    if (hd <= 64) return launch<2>(p, stream);
    if (hd <= 128) return launch<4>(p, stream);
    return launch<8>(p, stream);
}

} // namespace

void attention(const AttentionShape& shape, const AttentionSlice* slices, size_t sliceCount, cudaStream_t stream) {
    if (shape.headDim <= 0 || shape.headDim > kMaxAttentionHeadDim || shape.heads <= 0 || shape.heads > 65535) {
        throw std::invalid_argument("attention kernel: head dimension " + std::to_string(shape.headDim) + " or " +
                                    std::to_string(shape.heads) + " heads out of range (headDim ≤ " +
                                    std::to_string(kMaxAttentionHeadDim) + ")");
    }
    static_assert(kTileQueries * kMaxAttentionHeadDim * (1 + kWarps) * sizeof(float) + 2 * kWarps * kTileQueries * sizeof(float) <=
                      48 * 1024,
                  "attention shared memory must fit the default 48 KiB");
    AttentionLaunch p{};
    p.shape = shape;
    for (size_t i = 0; i < sliceCount; ++i) {
        const AttentionSlice& slice = slices[i];
        if (slice.queryCount <= 0) continue;
        p.queryRow[p.slices] = slice.queryRow;
        p.queryCount[p.slices] = slice.queryCount;
        p.keyRow[p.slices] = slice.keyRow;
        p.keyCount[p.slices] = slice.keyCount;
        p.offsetIndex[p.slices] = slice.offsetIndex;
        p.firstTile[p.slices + 1] = p.firstTile[p.slices] + (slice.queryCount + kTileQueries - 1) / kTileQueries;
        if (++p.slices == kMaxSlices) {
            launchFor(p, stream);
            p.slices = 0;
        }
    }
    if (p.slices > 0) launchFor(p, stream);
}

} // namespace hearsay::cuda
