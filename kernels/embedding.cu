// Embedding lookup (see embedding.h): one block per output row.
#include "kernels/embedding.h"

#include "kernels/cuda_check.h"

namespace hearsay::cuda {
namespace {

__global__ void embedKernel(const int* tokens, const int* positions, const float* tokenTable,
                            const float* positionTable, int width, float* y) {
    const size_t i = blockIdx.x;
    const float* a = tokenTable + size_t(tokens[i]) * size_t(width);
    const float* b = positionTable + size_t(positions[i]) * size_t(width);
    float* out = y + i * size_t(width);
    for (int j = threadIdx.x; j < width; j += blockDim.x) out[j] = a[j] + b[j];
}

} // namespace

void embed(const int* tokens, const int* positions, int count, const float* tokenTable, const float* positionTable,
           int width, float* y, cudaStream_t stream) {
    if (count <= 0) return;
    embedKernel<<<unsigned(count), 128, 0, stream>>>(tokens, positions, tokenTable, positionTable, width, y);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace hearsay::cuda
