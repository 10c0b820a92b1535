// im2col for the kernel-3 convolutions (see conv1d.h): one thread per element of col, so the
// writes are coalesced; consecutive threads read the same or the next channel of x.
#include "kernels/conv1d.h"

#include "kernels/cuda_check.h"

#include <algorithm>

namespace hearsay::cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline void store(float* p, float v) { *p = v; }
__device__ inline void store(__half* p, float v) {
    constexpr float kHalfMax = 65504.0f;
    *p = __float2half_rn(v != v ? v : fminf(fmaxf(v, -kHalfMax), kHalfMax));
}

template <class Col>
__global__ void im2col3Kernel(const float* x, int length, int channels, int stride, size_t total, Col* col) {
    const size_t width = size_t(channels) * 3;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
        const size_t t = i / width;
        const int r = int(i % width);
        const int c = r / 3, k = r % 3;
        const long long source = static_cast<long long>(t) * stride + k - 1;
        store(col + i, (source >= 0 && source < length) ? x[size_t(source) * size_t(channels) + size_t(c)] : 0.0f);
    }
}

template <class Col>
void launchIm2col3(const float* x, int length, int channels, int stride, int outLength, Col* col, cudaStream_t stream) {
    const size_t total = size_t(outLength) * size_t(channels) * 3;
    if (total == 0) return;
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((total + kThreads - 1) / kThreads, 65535));
    im2col3Kernel<<<blocks, kThreads, 0, stream>>>(x, length, channels, stride, total, col);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace

void im2col3(const float* x, int length, int channels, int stride, int outLength, float* col, cudaStream_t stream) {
    launchIm2col3(x, length, channels, stride, outLength, col, stream);
}

void im2col3(const float* x, int length, int channels, int stride, int outLength, __half* col, cudaStream_t stream) {
    launchIm2col3(x, length, channels, stride, outLength, col, stream);
}

} // namespace hearsay::cuda
