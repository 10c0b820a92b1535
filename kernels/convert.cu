// The float32 -> half cast (see convert.h): a grid-stride loop, one element per thread per step.
#include "kernels/convert.h"

#include "kernels/cuda_check.h"

#include <algorithm>

namespace hearsay::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void castToHalfKernel(const float* x, __half* y, size_t n) {
    constexpr float kHalfMax = 65504.0f;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        // fminf/fmaxf return the other operand for a NaN: keep NaN visible instead.
        const float v = x[i];
        y[i] = __float2half_rn(v != v ? v : fminf(fmaxf(v, -kHalfMax), kHalfMax));
    }
}

} // namespace

void castToHalf(const float* x, __half* y, size_t n, cudaStream_t stream) {
    if (n == 0) return;
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + kThreads - 1) / kThreads, 65535));
    castToHalfKernel<<<blocks, kThreads, 0, stream>>>(x, y, n);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace hearsay::cuda
