// Embedding lookup (see embedding.h): one block per output row.
#include "kernels/embedding.h"

#include "kernels/cuda_check.h"

#include <math_constants.h>

namespace hearsay::cuda {
namespace {

__global__ void embedKernel(const int* tokens, const int* positions, const float* tokenTable, int tokenRows,
                            const float* positionTable, int positionRows, int width, float* y) {
    const size_t i = blockIdx.x;
    const int token = tokens[i], position = positions[i];
    float* out = y + i * size_t(width);
    if (token < 0 || token >= tokenRows || position < 0 || position >= positionRows) {
        // The host checked the ids it uploaded; a bad one poisons its row instead of reading
        // outside the tables.
        for (int j = threadIdx.x; j < width; j += blockDim.x) out[j] = CUDART_NAN_F;
        return;
    }
    const float* a = tokenTable + size_t(token) * size_t(width);
    const float* b = positionTable + size_t(position) * size_t(width);
    for (int j = threadIdx.x; j < width; j += blockDim.x) out[j] = a[j] + b[j];
}

} // namespace

void embed(const int* tokens, const int* positions, int count, const float* tokenTable, int tokenRows,
           const float* positionTable, int positionRows, int width, float* y, cudaStream_t stream) {
    if (count <= 0) return;
    embedKernel<<<unsigned(count), 128, 0, stream>>>(tokens, positions, tokenTable, tokenRows, positionTable,
                                                     positionRows, width, y);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace hearsay::cuda
