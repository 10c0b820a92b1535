// Elementwise kernels (see elementwise.h): grid-stride loops, one element per thread per step.
#include "kernels/elementwise.h"

#include "kernels/cuda_check.h"

#include <algorithm>

namespace hearsay::cuda {
namespace {

constexpr int kThreads = 256;

unsigned gridFor(size_t n) {
    const size_t blocks = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(std::min<size_t>(std::max<size_t>(blocks, 1), 65535));
}

__global__ void geluKernel(float* x, size_t n) {
    const float kInvSqrt2 = 0.70710678118654752440f;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const float v = x[i];
        x[i] = 0.5f * v * erfcf(-v * kInvSqrt2);  // 1 + erf(v/√2), without cancellation for v < 0
    }
}

__device__ inline float toFloat(float v) { return v; }
__device__ inline float toFloat(__half v) { return __half2float(v); }

template <class Y>
__global__ void addKernel(float* x, const Y* y, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        x[i] += toFloat(y[i]);
    }
}

__global__ void broadcastBiasKernel(float* y, const float* bias, size_t n, int cols, bool accumulate) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const float b = bias[i % size_t(cols)];
        y[i] = accumulate ? y[i] + b : b;
    }
}

} // namespace

void gelu(float* x, size_t n, cudaStream_t stream) {
    if (n == 0) return;
    geluKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

void add(float* x, const float* y, size_t n, cudaStream_t stream) {
    if (n == 0) return;
    addKernel<<<gridFor(n), kThreads, 0, stream>>>(x, y, n);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

void add(float* x, const __half* y, size_t n, cudaStream_t stream) {
    if (n == 0) return;
    addKernel<<<gridFor(n), kThreads, 0, stream>>>(x, y, n);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

void broadcastBias(float* y, const float* bias, int rows, int cols, bool accumulate, cudaStream_t stream) {
    const size_t n = size_t(rows) * size_t(cols);
    if (n == 0) return;
    broadcastBiasKernel<<<gridFor(n), kThreads, 0, stream>>>(y, bias, n, cols, accumulate);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace hearsay::cuda
