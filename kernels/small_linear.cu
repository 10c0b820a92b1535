// The few-rows linear (see small_linear.h). One warp per output column, 4 warps per block, so
// even a 1280-column layer spreads over 1280 warps; blockIdx.y picks the target. A lane reads 8 consecutive halves of the
// weight row per 16-byte load, four such loads in flight per step of 1024 elements, widens them
// and multiplies them with the same 8 elements of every row of x (float4 reads, served by L1:
// every warp on an SM reads the same x). The warp then sums its lanes per row and lane 0 writes
// the result plus bias plus the old y. Rows or x that are not 16-byte aligned (odd `in`, a view
// at an odd offset) take a scalar path with the same arithmetic.
#include "kernels/small_linear.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hearsay::cuda {
namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kSteps = 4;                      // loads in flight per lane
constexpr int kVectorSpan = kSteps * 32 * 8;   // elements a warp covers per outer step (vector path)
constexpr int kScalarSpan = kSteps * 32;       // the same, scalar path

struct Launch {
    const float* x;
    int in;
    SmallLinearTarget targets[kSmallLinearMaxTargets];
};

template <int kRows, bool kVector>
__global__ void __launch_bounds__(kThreads) smallLinearKernel(const __grid_constant__ Launch p) {
    const float* __restrict__ x = p.x;
    const int in = p.in;
    const SmallLinearTarget& target = p.targets[blockIdx.y];
    const int out = target.out;
    const int lane = threadIdx.x % 32;
    const int column = blockIdx.x * kWarps + threadIdx.x / 32;
    if (column >= out) return;  // warp-uniform; no barrier in this kernel
    const __half* row = target.w + size_t(column) * size_t(in);

    float acc[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r] = 0.0f;

    if constexpr (kVector) {
        // in % 8 == 0, w and x 16-byte aligned: every k below is a multiple of 8.
        for (int base = 0; base < in; base += kVectorSpan) {
            uint4 raw[kSteps];
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                const int k = base + (s * 32 + lane) * 8;
                raw[s] = k < in ? __ldg(reinterpret_cast<const uint4*>(row + k)) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                const int k = base + (s * 32 + lane) * 8;
                if (k >= in) break;
                float wf[8];
                halvesToFloats(raw[s], wf);
#pragma unroll
                for (int r = 0; r < kRows; ++r) {
                    const float4* xr = reinterpret_cast<const float4*>(x + size_t(r) * size_t(in) + size_t(k));
                    const float4 lo = __ldg(xr), hi = __ldg(xr + 1);
                    float a = acc[r];
                    a = fmaf(lo.x, wf[0], a);
                    a = fmaf(lo.y, wf[1], a);
                    a = fmaf(lo.z, wf[2], a);
                    a = fmaf(lo.w, wf[3], a);
                    a = fmaf(hi.x, wf[4], a);
                    a = fmaf(hi.y, wf[5], a);
                    a = fmaf(hi.z, wf[6], a);
                    a = fmaf(hi.w, wf[7], a);
                    acc[r] = a;
                }
            }
        }
    } else {
        for (int base = 0; base < in; base += kScalarSpan) {
            float wf[kSteps];
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                const int k = base + s * 32 + lane;
                wf[s] = k < in ? __half2float(row[k]) : 0.0f;
            }
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                const int k = base + s * 32 + lane;
                if (k >= in) break;
#pragma unroll
                for (int r = 0; r < kRows; ++r) acc[r] = fmaf(x[size_t(r) * size_t(in) + size_t(k)], wf[s], acc[r]);
            }
        }
    }

#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const float sum = warpSum(acc[r]);
        if (lane == 0) {
            float* dst = target.y + size_t(r) * size_t(out) + size_t(column);
            float v = sum;
            if (target.bias) v += target.bias[column];
            if (target.gelu) v = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));  // as elementwise.cu
            if (target.accumulate) v += *dst;
            *dst = v;
        }
    }
}

template <int kRows>
void launch(const Launch& p, int targetCount, cudaStream_t stream) {
    int widest = 0;
    bool vector = p.in % 8 == 0 && reinterpret_cast<uintptr_t>(p.x) % 16 == 0;
    for (int t = 0; t < targetCount; ++t) {
        widest = std::max(widest, p.targets[t].out);
        vector = vector && reinterpret_cast<uintptr_t>(p.targets[t].w) % 16 == 0;
    }
    const dim3 grid(unsigned((widest + kWarps - 1) / kWarps), unsigned(targetCount));
    if (vector) {
        smallLinearKernel<kRows, true><<<grid, kThreads, 0, stream>>>(p);
    } else {
        smallLinearKernel<kRows, false><<<grid, kThreads, 0, stream>>>(p);
    }
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace

void smallLinear(const float* x, const SmallLinearTarget* targets, int targetCount, int rows, int in,
                 cudaStream_t stream) {
    if (in < 1 || targetCount < 1 || targetCount > kSmallLinearMaxTargets) {
        throw std::invalid_argument("smallLinear: " + std::to_string(targetCount) + " targets, in = " + std::to_string(in));
    }
    Launch p{};
    p.x = x;
    p.in = in;
    for (int t = 0; t < targetCount; ++t) {
        if (targets[t].out < 1) throw std::invalid_argument("smallLinear: empty matrix");
        if (targets[t].gelu && targets[t].accumulate) throw std::invalid_argument("smallLinear: GELU with accumulate");
        p.targets[t] = targets[t];
    }
    switch (rows) {
    case 1: return launch<1>(p, targetCount, stream);
    case 2: return launch<2>(p, targetCount, stream);
    case 3: return launch<3>(p, targetCount, stream);
    case 4: return launch<4>(p, targetCount, stream);
    case 5: return launch<5>(p, targetCount, stream);
    case 6: return launch<6>(p, targetCount, stream);
    case 7: return launch<7>(p, targetCount, stream);
    case 8: return launch<8>(p, targetCount, stream);
    default: break;
    }
    throw std::invalid_argument("smallLinear: " + std::to_string(rows) + " rows (1 to " +
                                std::to_string(kSmallLinearMaxRows) + ")");
}

} // namespace hearsay::cuda
