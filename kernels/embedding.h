// kernels/embedding: token + position embeddings of the decoder input.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace hearsay::cuda {

// A read-only table of float32 or IEEE half rows (fp16 mode keeps embedding tables as half).
struct EmbeddingTable {
    const void* data = nullptr;
    bool half = false;
};

// y[i][:] = tokenTable[tokens[i]][:] + positionTable[positions[i]][:], i < count, summed in fp32.
// tokens, positions: device arrays of ids the caller has checked against the tables.
void embed(const int* tokens, const int* positions, int count, EmbeddingTable tokenTable, EmbeddingTable positionTable,
           int width, float* y, cudaStream_t stream);

} // namespace hearsay::cuda
