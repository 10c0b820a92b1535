// Embedding lookup (see embedding.h): one block per output row; one instantiation per pair of
// table element types.
#include "kernels/embedding.h"

#include "kernels/cuda_check.h"

#include <math_constants.h>

namespace hearsay::cuda {
namespace {

__device__ inline float toFloat(float v) { return v; }
__device__ inline float toFloat(__half v) { return __half2float(v); }

template <class T, class P>
__global__ void embedKernel(const int* tokens, const int* positions, const T* tokenTable, int tokenRows,
                            const P* positionTable, int positionRows, int width, float* y) {
    const size_t i = blockIdx.x;
    const int token = tokens[i], position = positions[i];
    float* out = y + i * size_t(width);
    if (token < 0 || token >= tokenRows || position < 0 || position >= positionRows) {
        // The host checked the ids it uploaded; a bad one poisons its row instead of reading
        // outside the tables.
        for (int j = threadIdx.x; j < width; j += blockDim.x) out[j] = CUDART_NAN_F;
        return;
    }
    const T* a = tokenTable + size_t(token) * size_t(width);
    const P* b = positionTable + size_t(position) * size_t(width);
    for (int j = threadIdx.x; j < width; j += blockDim.x) out[j] = toFloat(a[j]) + toFloat(b[j]);
}

template <class T, class P>
void launch(const int* tokens, const int* positions, int count, EmbeddingTable tokenTable,
            EmbeddingTable positionTable, int width, float* y, cudaStream_t stream) {
    embedKernel<<<unsigned(count), 128, 0, stream>>>(tokens, positions, static_cast<const T*>(tokenTable.data),
                                                     tokenTable.rows, static_cast<const P*>(positionTable.data),
                                                     positionTable.rows, width, y);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace

void embed(const int* tokens, const int* positions, int count, EmbeddingTable tokenTable, EmbeddingTable positionTable,
           int width, float* y, cudaStream_t stream) {
    if (count <= 0) return;
    if (tokenTable.half && positionTable.half) {
        launch<__half, __half>(tokens, positions, count, tokenTable, positionTable, width, y, stream);
    } else if (tokenTable.half) {
        launch<__half, float>(tokens, positions, count, tokenTable, positionTable, width, y, stream);
    } else if (positionTable.half) {
        launch<float, __half>(tokens, positions, count, tokenTable, positionTable, width, y, stream);
    } else {
        launch<float, float>(tokens, positions, count, tokenTable, positionTable, width, y, stream);
    }
}

} // namespace hearsay::cuda
