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
    int offsetIndex = 0;  // entry of dstRowOffsets added to dstRow (when there are offsets)
};

// For each block: dst[(dstRow + offset + i) · dstStride + j] = src[(srcRow + i) · srcStride + j],
// i < count, j < width, where offset = dstRowOffsets[offsetIndex] (a device array read when the
// kernel runs; null: 0). Rows outside [0, dstRows) are not written. Blocks must not overlap each
// other (they run in parallel).
void copyRows(const float* src, size_t srcStride, float* dst, size_t dstStride, size_t dstRows, int width,
              const RowBlock* blocks, size_t blockCount, const int* dstRowOffsets, cudaStream_t stream);

} // namespace hearsay::cuda
