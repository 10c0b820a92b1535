// kernels/copy_rows: several blocks of strided rows copied in one launch (KV cache writes,
// beam reordering, gathering the last rows of a pass).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace hearsay::cuda {

struct RowBlock {
    size_t srcRow = 0;
    size_t dstRow = 0;
    size_t count = 0;
};

// For each block: dst[(dstRow + i) · dstStride + j] = src[(srcRow + i) · srcStride + j],
// i < count, j < width. Blocks must not overlap each other (they run in parallel).
void copyRows(const float* src, size_t srcStride, float* dst, size_t dstStride, int width, const RowBlock* blocks,
              size_t blockCount, cudaStream_t stream);

} // namespace hearsay::cuda
