// The few-rows linear (see small_linear.h). One warp per output column, 4 warps per block, so
// even a 1280-column layer spreads over 1280 warps. A lane reads 8 consecutive halves of the
// weight row per 16-byte load, four such loads in flight per step of 1024 elements, widens them
// and multiplies them with the same 8 elements of every row of x (float4 reads, served by L1:
// every warp on an SM reads the same x). The warp then sums its lanes per row and lane 0 writes
// the result plus bias plus the old y. Rows or x that are not 16-byte aligned (odd `in`, a view
// at an odd offset) take a scalar path with the same arithmetic.
#include "kernels/small_linear.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

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

template <int kRows, bool kVector>
__global__ void __launch_bounds__(kThreads)
    smallLinearKernel(const float* __restrict__ x, const __half* __restrict__ w, const float* __restrict__ bias,
                      float* y, int in, int out, bool accumulate) {
    const int lane = threadIdx.x % 32;
    const int column = blockIdx.x * kWarps + threadIdx.x / 32;
    if (column >= out) return;  // warp-uniform; no barrier in this kernel
    const __half* row = w + size_t(column) * size_t(in);

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
                const __half2* h = reinterpret_cast<const __half2*>(&raw[s]);
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const float2 f = __half22float2(h[j]);
                    wf[2 * j] = f.x;
                    wf[2 * j + 1] = f.y;
                }
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
            float* dst = y + size_t(r) * size_t(out) + size_t(column);
            float v = sum;
            if (bias) v += bias[column];
            if (accumulate) v += *dst;
            *dst = v;
        }
    }
}

template <int kRows>
void launch(const float* x, const __half* w, const float* bias, float* y, int in, int out, bool accumulate,
            cudaStream_t stream) {
    const unsigned blocks = static_cast<unsigned>((out + kWarps - 1) / kWarps);
    const bool vector =
        in % 8 == 0 && reinterpret_cast<uintptr_t>(w) % 16 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0;
    if (vector) {
        smallLinearKernel<kRows, true><<<blocks, kThreads, 0, stream>>>(x, w, bias, y, in, out, accumulate);
    } else {
        smallLinearKernel<kRows, false><<<blocks, kThreads, 0, stream>>>(x, w, bias, y, in, out, accumulate);
    }
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace

void smallLinear(const float* x, const __half* w, const float* bias, float* y, int rows, int in, int out,
                 bool accumulate, cudaStream_t stream) {
    if (in < 1 || out < 1) throw std::invalid_argument("smallLinear: empty matrix");
    switch (rows) {
    case 1: return launch<1>(x, w, bias, y, in, out, accumulate, stream);
    case 2: return launch<2>(x, w, bias, y, in, out, accumulate, stream);
    case 3: return launch<3>(x, w, bias, y, in, out, accumulate, stream);
    case 4: return launch<4>(x, w, bias, y, in, out, accumulate, stream);
    case 5: return launch<5>(x, w, bias, y, in, out, accumulate, stream);
    case 6: return launch<6>(x, w, bias, y, in, out, accumulate, stream);
    case 7: return launch<7>(x, w, bias, y, in, out, accumulate, stream);
    case 8: return launch<8>(x, w, bias, y, in, out, accumulate, stream);
    default: break;
    }
    throw std::invalid_argument("smallLinear: " + std::to_string(rows) + " rows (1 to " +
                                std::to_string(kSmallLinearMaxRows) + ")");
}

} // namespace hearsay::cuda
