// Warp and block reductions shared by the kernels (device code only), and attention's two
// products per warp: a key's scores against a query tile, the weighted sum of value rows.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace hearsay::cuda {

// An element of float32 or half storage (KV caches may be either) as float.
__device__ __forceinline__ float loadFloat(const float* p) { return *p; }
__device__ __forceinline__ float loadFloat(const __half* p) { return __half2float(*p); }

// The eight halves of 16 loaded bytes (a uint4 read from half storage) as floats, in order.
__device__ __forceinline__ void halvesToFloats(const uint4& bytes, float (&out)[8]) {
    const __half2* pairs = reinterpret_cast<const __half2*>(&bytes);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(pairs[i]);
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
    }
}

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// score[q] = Σ_{d < dims} queries[q · dims + d] · key[d] for each query row of a [kQueries][dims]
// tile (one key per lane): attention's scores of one key against a tile of queries.
template <int kQueries, class T>
__device__ __forceinline__ void keyScores(const float* queries, const T* key, int dims, float (&score)[kQueries]) {
#pragma unroll
    for (int q = 0; q < kQueries; ++q) score[q] = 0.0f;
    for (int d = 0; d < dims; ++d) {
        const float kd = loadFloat(key + d);
#pragma unroll
        for (int q = 0; q < kQueries; ++q) score[q] += queries[q * dims + d] * kd;
    }
}

// acc[q][i] += Σ_{j < keys} w_j(q) · values[j · stride + lane + 32 i] over the warp, where lane j
// holds weight[q] of key j (broadcast by shuffles; keys ≤ 32) and lane l owns dimensions l, l + 32,
// ... below `dims`: attention's weighted sum of value rows.
template <int kQueries, int kDims, class T>
__device__ __forceinline__ void warpWeightedRows(const T* values, size_t stride, int keys, int dims,
                                                 const float (&weight)[kQueries], float (&acc)[kQueries][kDims]) {
    const int lane = threadIdx.x % 32;
    for (int j = 0; j < keys; ++j) {
        float vj[kDims];
#pragma unroll
        for (int i = 0; i < kDims; ++i) {
            const int d = lane + 32 * i;
            vj[i] = d < dims ? loadFloat(values + size_t(j) * stride + size_t(d)) : 0.0f;
        }
#pragma unroll
        for (int q = 0; q < kQueries; ++q) {
            const float w = __shfl_sync(0xffffffffu, weight[q], j);
#pragma unroll
            for (int i = 0; i < kDims; ++i) acc[q][i] += w * vj[i];
        }
    }
}

// The reduction of v over the block by `warpReduce` (warpSum, warpMax), `empty` standing in for
// the warps a block of fewer than 32 lacks (blockDim.x a multiple of 32, at most 1024); every thread
// gets the result. `scratch` holds 32 floats of shared memory; it may be reused after the call returns.
template <float (*warpReduce)(float)>
__device__ __forceinline__ float blockReduce(float v, float* scratch, float empty) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warpReduce(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < int(blockDim.x / 32) ? scratch[lane] : empty;
        v = warpReduce(v);
        if (lane == 0) scratch[0] = v;
    }
    __syncthreads();
    const float total = scratch[0];
    __syncthreads();
    return total;
}

__device__ __forceinline__ float blockSum(float v, float* scratch) { return blockReduce<warpSum>(v, scratch, 0.0f); }
__device__ __forceinline__ float blockMax(float v, float* scratch) { return blockReduce<warpMax>(v, scratch, -INFINITY); }

} // namespace hearsay::cuda
