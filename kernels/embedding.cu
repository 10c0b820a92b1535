// Embedding lookup (see embedding.h): one block per output row; one instantiation per pair of
// table element types.
#include "kernels/embedding.h"

#include "kernels/cuda_check.h"

namespace hearsay::cuda {
namespace {

__device__ inline float toFloat(float v) { return v; }
__device__ inline float toFloat(__half v) { return __half2float(v); }

template <class T, class P>
__global__ void embedKernel(const int* tokens, const int* positions, const T* tokenTable, const P* positionTable,
                            int width, float* y) {
    const size_t i = blockIdx.x;
    const T* a = tokenTable + size_t(tokens[i]) * size_t(width);
    const P* b = positionTable + size_t(positions[i]) * size_t(width);
    float* out = y + i * size_t(width);
    for (int j = threadIdx.x; j < width; j += blockDim.x) out[j] = toFloat(a[j]) + toFloat(b[j]);
}

template <class T, class P>
void launch(const int* tokens, const int* positions, int count, const void* tokenTable, const void* positionTable,
            int width, float* y, cudaStream_t stream) {
    embedKernel<<<unsigned(count), 128, 0, stream>>>(tokens, positions, static_cast<const T*>(tokenTable),
                                                     static_cast<const P*>(positionTable), width, y);
    HEARSAY_CUDA_CHECK_LAUNCH();
}

} // namespace

void embed(const int* tokens, const int* positions, int count, EmbeddingTable tokenTable, EmbeddingTable positionTable,
           int width, float* y, cudaStream_t stream) {
    if (count <= 0) return;
    const void* t = tokenTable.data;
    const void* p = positionTable.data;
    if (tokenTable.half && positionTable.half) {
        launch<__half, __half>(tokens, positions, count, t, p, width, y, stream);
    } else if (tokenTable.half) {
        launch<__half, float>(tokens, positions, count, t, p, width, y, stream);
    } else if (positionTable.half) {
        launch<float, __half>(tokens, positions, count, t, p, width, y, stream);
    } else {
        launch<float, float>(tokens, positions, count, t, p, width, y, stream);
    }
}

} // namespace hearsay::cuda
