// kernels/embedding: token + position embeddings of the decoder input.
#pragma once

#include <cuda_runtime.h>

namespace hearsay::cuda {

// y[i][:] = tokenTable[tokens[i]][:] + positionTable[positions[i]][:], i < count.
// tokens, positions: device arrays of ids the caller has checked against the tables.
void embed(const int* tokens, const int* positions, int count, const float* tokenTable, const float* positionTable,
           int width, float* y, cudaStream_t stream);

} // namespace hearsay::cuda
