// Layer norm (see layer_norm.h): a block of 256 threads per row; the mean, then the variance
// as Σ (x - mean)² (two passes, as the CPU reference), then the output. In place is safe: each
// thread writes only the elements it has read.
#include "kernels/layer_norm.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

namespace hearsay::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void layerNormKernel(const float* x, const float* gamma, const float* beta, float* y, int cols, float eps) {
    __shared__ float scratch[32];
    const size_t row = blockIdx.x;
    const float* in = x + row * size_t(cols);
    float* out = y + row * size_t(cols);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) sum += in[j];
    const float mean = blockSum(sum, scratch) / float(cols);
    float squares = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float d = in[j] - mean;
        squares += d * d;
    }
    const float inv = 1.0f / sqrtf(blockSum(squares, scratch) / float(cols) + eps);  // IEEE, as the CPU
    for (int j = threadIdx.x; j < cols; j += blockDim.x) out[j] = (in[j] - mean) * inv * gamma[j] + beta[j];
}

} // namespace

void layerNorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols, float eps,
               cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    layerNormKernel<<<unsigned(rows), kThreads, 0, stream>>>(x, gamma, beta, y, cols, eps);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace hearsay::cuda
