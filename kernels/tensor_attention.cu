// Tensor-core attention (see tensor_attention.h). A block of 8 warps takes 128 queries of one
// head; each warp owns 16 of them. Per tile of 64 keys the block converts K and V to half in
// shared memory; each warp then computes its 16×64 scores with WMMA (Q fragments stay in
// registers), stores them to its own shared-memory patch, runs the online softmax there (lane
// pair per query row, fp32, exp2), writes P back as half over the same bytes, and multiplies P·V
// with WMMA into that patch again; each lane adds its 32 output values to its registers.
#include "kernels/tensor_attention.h"

#include "kernels/cuda_check.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <stdexcept>

namespace hearsay::cuda {
namespace {

using namespace nvcuda;

constexpr int kD = kTensorAttentionHeadDim;
constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kWarpQueries = 16;
constexpr int kBlockQueries = kWarps * kWarpQueries;
constexpr int kKeyTile = 64;
constexpr int kHalfLd = kD + 8;         // halves per row of the K, V, Q and P tiles (padding: banks)
constexpr int kFloatLd = kKeyTile + 4;  // floats per row of a warp's score / P·V patch
constexpr size_t kTileBytes = size_t(kKeyTile) * kHalfLd * sizeof(__half);
constexpr size_t kPatchBytes = size_t(kWarpQueries) * kFloatLd * sizeof(float);
constexpr size_t kSharedBytes = 2 * kTileBytes + kWarps * kPatchBytes;  // 53,248: above the default 48 KiB
constexpr float kLog2e = 1.4426950408889634f;
static_assert(kD == kKeyTile, "a warp's patch holds both its scores (16 × keys) and its P·V (16 × dims)");
static_assert(kPatchBytes >= size_t(kWarpQueries) * kHalfLd * sizeof(__half), "Q and P fit a patch");
static_assert(kTileBytes % 32 == 0 && kPatchBytes % 32 == 0, "WMMA pointers must be 32-byte aligned");

struct Params {
    const float* q;
    const void* k;  // float32, or half (KV) rows
    const void* v;
    float* out;
    size_t qStride, kvStride, outStride;
    int queryRow, queryCount;
    size_t keyRow;
    int keyCount;
    float scale;
};

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;
using FragKt = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major>;  // Kᵀ from K rows
using FragV = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>;
using FragAcc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

__device__ __forceinline__ void storeHalf4(__half* dst, float4 v, float scale) {
    __half2* d = reinterpret_cast<__half2*>(dst);
    d[0] = __floats2half2_rn(v.x * scale, v.y * scale);
    d[1] = __floats2half2_rn(v.z * scale, v.w * scale);
}

// Four consecutive K or V elements into a half tile: float32 converted, half copied as is.
__device__ __forceinline__ void copy4(__half* dst, const float* src) { storeHalf4(dst, *reinterpret_cast<const float4*>(src), 1.0f); }
__device__ __forceinline__ void copy4(__half* dst, const __half* src) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
}
__device__ __forceinline__ void zero4(__half* dst) { *reinterpret_cast<uint2*>(dst) = make_uint2(0, 0); }

template <class KV>
__global__ void __launch_bounds__(kThreads) tensorAttentionKernel(const Params p) {
    extern __shared__ __align__(128) unsigned char shared[];
    __half* kTile = reinterpret_cast<__half*>(shared);
    __half* vTile = kTile + kKeyTile * kHalfLd;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float* patch = reinterpret_cast<float*>(shared + 2 * kTileBytes + warp * kPatchBytes);
    __half* halfPatch = reinterpret_cast<__half*>(patch);  // the same bytes as half rows: Q, then P

    const size_t column = size_t(blockIdx.y) * kD;
    const int firstQuery = blockIdx.x * kBlockQueries + warp * kWarpQueries;  // within the slice

    // This warp's queries, scaled, as half (zero rows past the slice), into Q fragments.
    for (int i = lane; i < kWarpQueries * (kD / 4); i += 32) {
        const int r = i / (kD / 4), c = (i % (kD / 4)) * 4;
        float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (firstQuery + r < p.queryCount) {
            x = *reinterpret_cast<const float4*>(p.q + size_t(p.queryRow + firstQuery + r) * p.qStride + column + c);
        }
        storeHalf4(halfPatch + r * kHalfLd + c, x, p.scale);
    }
    __syncwarp();
    FragA qa[kD / 16];
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk) wmma::load_matrix_sync(qa[kk], halfPatch + kk * 16, kHalfLd);
    __syncwarp();

    // Lane pair (2i, 2i + 1) owns query row i of the patch: columns 0..31 and 32..63.
    const int row = lane / 2, firstColumn = (lane % 2) * 32;
    float runMax = -INFINITY, runSum = 0.0f;
    float acc[32];
#pragma unroll
    for (int c = 0; c < 32; ++c) acc[c] = 0.0f;

    for (int tile = 0; tile < p.keyCount; tile += kKeyTile) {
        __syncthreads();  // every warp is done with the previous K and V tiles
        for (int i = threadIdx.x; i < kKeyTile * (kD / 4); i += kThreads) {
            const int key = i / (kD / 4), c = (i % (kD / 4)) * 4;
            if (tile + key < p.keyCount) {
                const size_t at = (p.keyRow + size_t(tile + key)) * p.kvStride + column + c;
                copy4(kTile + key * kHalfLd + c, static_cast<const KV*>(p.k) + at);
                copy4(vTile + key * kHalfLd + c, static_cast<const KV*>(p.v) + at);
            } else {
                zero4(kTile + key * kHalfLd + c);
                zero4(vTile + key * kHalfLd + c);
            }
        }
        __syncthreads();

        // S = Q·Kᵀ (16 queries × 64 keys) into the patch.
#pragma unroll
        for (int j = 0; j < kKeyTile / 16; ++j) {
            FragAcc s;
            wmma::fill_fragment(s, 0.0f);
#pragma unroll
            for (int kk = 0; kk < kD / 16; ++kk) {
                FragKt kt;
                wmma::load_matrix_sync(kt, kTile + j * 16 * kHalfLd + kk * 16, kHalfLd);
                wmma::mma_sync(s, qa[kk], kt, s);
            }
            wmma::store_matrix_sync(patch + j * 16, s, kFloatLd, wmma::mem_row_major);
        }
        __syncwarp();

        // Online softmax over this tile, base 2; keys past the slice weigh 0.
        const int valid = min(kKeyTile, p.keyCount - tile);
        float w[32];
        float tileMax = -INFINITY;
#pragma unroll
        for (int c = 0; c < 32; c += 4) {
            const float4 f = *reinterpret_cast<const float4*>(patch + row * kFloatLd + firstColumn + c);
            const float s4[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                w[c + t] = firstColumn + c + t < valid ? s4[t] * kLog2e : -INFINITY;
                tileMax = fmaxf(tileMax, w[c + t]);
            }
        }
        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 1));
        const float newMax = fmaxf(runMax, tileMax);          // finite: key `tile` is valid
        const float correction = exp2f(runMax - newMax);      // 0 on the first tile
        float sum = 0.0f;
#pragma unroll
        for (int c = 0; c < 32; ++c) {
            w[c] = exp2f(w[c] - newMax);
            sum += w[c];
        }
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        runSum = runSum * correction + sum;
        runMax = newMax;
#pragma unroll
        for (int c = 0; c < 32; ++c) acc[c] *= correction;
        __syncwarp();  // every lane has read its scores: P may overwrite them
#pragma unroll
        for (int c = 0; c < 32; c += 2) {
            *reinterpret_cast<__half2*>(halfPatch + row * kHalfLd + firstColumn + c) = __floats2half2_rn(w[c], w[c + 1]);
        }
        __syncwarp();
        FragA pa[kKeyTile / 16];
#pragma unroll
        for (int kk = 0; kk < kKeyTile / 16; ++kk) wmma::load_matrix_sync(pa[kk], halfPatch + kk * 16, kHalfLd);
        __syncwarp();  // P is in registers: the patch takes P·V

        // P·V (16 queries × 64 dims) into the patch, then into each lane's accumulators.
#pragma unroll
        for (int j = 0; j < kD / 16; ++j) {
            FragAcc o;
            wmma::fill_fragment(o, 0.0f);
#pragma unroll
            for (int kk = 0; kk < kKeyTile / 16; ++kk) {
                FragV vf;
                wmma::load_matrix_sync(vf, vTile + kk * 16 * kHalfLd + j * 16, kHalfLd);
                wmma::mma_sync(o, pa[kk], vf, o);
            }
            wmma::store_matrix_sync(patch + j * 16, o, kFloatLd, wmma::mem_row_major);
        }
        __syncwarp();
#pragma unroll
        for (int c = 0; c < 32; c += 4) {
            const float4 f = *reinterpret_cast<const float4*>(patch + row * kFloatLd + firstColumn + c);
            acc[c] += f.x;
            acc[c + 1] += f.y;
            acc[c + 2] += f.z;
            acc[c + 3] += f.w;
        }
        // The next tile starts with __syncthreads: no lane writes the patch before all have read it.
    }

    const int query = firstQuery + row;
    if (query < p.queryCount) {
        float* dst = p.out + size_t(p.queryRow + query) * p.outStride + column + firstColumn;
        const float inverse = 1.0f / runSum;
#pragma unroll
        for (int c = 0; c < 32; ++c) dst[c] = acc[c] * inverse;
    }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

} // namespace

bool tensorAttentionApplies(const AttentionShape& s) {
    return s.headDim == kD && !s.causal && !s.keyRowOffsets && !s.keyCountOffsets && aligned16(s.q) &&
           aligned16(s.k) && aligned16(s.v) && s.qStride % 4 == 0 && s.kvStride % 4 == 0;
}

void tensorAttention(const AttentionShape& shape, const AttentionSlice& slice, cudaStream_t stream) {
    if (!tensorAttentionApplies(shape)) throw std::invalid_argument("tensorAttention: shape not supported");
    if (slice.queryCount <= 0) return;
    if (slice.keyCount <= 0) throw std::invalid_argument("tensorAttention: no keys");
    const auto kernel = shape.kvHalf ? tensorAttentionKernel<__half> : tensorAttentionKernel<float>;
    HEARSAY_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSharedBytes)));
    const Params p{shape.q,         shape.k,          shape.v,          shape.out,
                   shape.qStride,   shape.kvStride,   shape.outStride,  slice.queryRow,
                   slice.queryCount, slice.keyRow,    slice.keyCount,   shape.scale};
    const dim3 grid(unsigned((slice.queryCount + kBlockQueries - 1) / kBlockQueries), unsigned(shape.heads));
    kernel<<<grid, kThreads, kSharedBytes, stream>>>(p);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace hearsay::cuda
