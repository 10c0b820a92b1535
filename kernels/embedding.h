// kernels/embedding: token + position embeddings of the decoder input.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace hearsay::cuda {

// A read-only table of float32 or IEEE half rows (fp16 mode keeps embedding tables as half).
struct EmbeddingTable {
    const void* data = nullptr;
    bool half = false;
    int rows = 0;  // ids at or above are outside the table
};

// y[i][:] = tokenTable[tokens[i]][:] + positionTable[positions[i]][:], i < count, summed in fp32.
// tokens, positions: device arrays read when the kernel runs (so a CUDA graph replays with the
// ids uploaded before it). An id outside its table makes row i of y NaN; nothing outside the
// tables is read.
void embed(const int* tokens, const int* positions, int count, EmbeddingTable tokenTable, EmbeddingTable positionTable,
           int width, float* y, cudaStream_t stream);

} // namespace hearsay::cuda
