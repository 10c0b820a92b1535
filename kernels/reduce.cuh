// Warp and block reductions shared by the kernels (device code only).
#pragma once

#include <cuda_runtime.h>

namespace hearsay::cuda {

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
// `scratch` holds 32 floats of shared memory; it may be reused after the call returns.
__device__ __forceinline__ float blockSum(float v, float* scratch) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warpSum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < int(blockDim.x / 32) ? scratch[lane] : 0.0f;
        v = warpSum(v);
        if (lane == 0) scratch[0] = v;
    }
    __syncthreads();
    const float total = scratch[0];
    __syncthreads();
    return total;
}

} // namespace hearsay::cuda
