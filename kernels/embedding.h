// kernels/embedding: token + position embeddings of the decoder input.
#pragma once

#include <cuda_runtime.h>

namespace hearsay::cuda {

// y[i][:] = tokenTable[tokens[i]][:] + positionTable[positions[i]][:], i < count.
// tokens, positions: device arrays read when the kernel runs (so a CUDA graph replays with the
// ids uploaded before it). An id outside its table (tokenRows, positionRows rows) makes row i
// of y NaN; nothing outside the tables is read.
void embed(const int* tokens, const int* positions, int count, const float* tokenTable, int tokenRows,
           const float* positionTable, int positionRows, int width, float* y, cudaStream_t stream);

} // namespace hearsay::cuda
