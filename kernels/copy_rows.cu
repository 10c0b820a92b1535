// Row block copies (see copy_rows.h): the blocks travel as kernel parameters (no host-to-device
// copy, so a CUDA graph can capture the launch), per-step row offsets in a device array read
// when the kernel runs; one CUDA block per row.
#include "kernels/copy_rows.h"

#include "kernels/cuda_check.h"

#include <algorithm>

namespace hearsay::cuda {
namespace {

constexpr int kMaxBlocks = 16;  // row blocks per launch; more are split over launches

struct CopyLaunch {
    const float* src;
    float* dst;
    const int* dstRowOffsets;  // null: no offsets
    size_t srcStride, dstStride, dstRows;
    int width;
    int blocks;
    size_t srcRow[kMaxBlocks], dstRow[kMaxBlocks];
    int offsetIndex[kMaxBlocks];
    unsigned firstRow[kMaxBlocks + 1];  // prefix sum of the blocks' row counts
};

__global__ void copyRowsKernel(const __grid_constant__ CopyLaunch p) {
    const unsigned row = blockIdx.x;
    int b = 0;
    while (b + 1 < p.blocks && row >= p.firstRow[b + 1]) ++b;
    const size_t i = row - p.firstRow[b];
    long long target = static_cast<long long>(p.dstRow[b] + i);
    if (p.dstRowOffsets) target += p.dstRowOffsets[p.offsetIndex[b]];
    if (target < 0 || static_cast<unsigned long long>(target) >= p.dstRows) return;  // a bad offset writes nothing
    const float* s = p.src + (p.srcRow[b] + i) * p.srcStride;
    float* d = p.dst + static_cast<size_t>(target) * p.dstStride;
    for (int j = threadIdx.x; j < p.width; j += blockDim.x) d[j] = s[j];
}

} // namespace

void copyRows(const float* src, size_t srcStride, float* dst, size_t dstStride, size_t dstRows, int width,
              const RowBlock* blocks, size_t blockCount, const int* dstRowOffsets, cudaStream_t stream) {
    CopyLaunch p{};
    p.src = src;
    p.dst = dst;
    p.dstRowOffsets = dstRowOffsets;
    p.srcStride = srcStride;
    p.dstStride = dstStride;
    p.dstRows = dstRows;
    p.width = width;
    const int threads = width >= 256 ? 256 : (width + 31) / 32 * 32;
    auto launch = [&] {
        if (p.blocks == 0 || p.firstRow[p.blocks] == 0) return;
        copyRowsKernel<<<p.firstRow[p.blocks], threads, 0, stream>>>(p);
        HEARSAY_CUDA_CHECK_LAUNCH();
        p.blocks = 0;
    };
    for (size_t c = 0; c < blockCount; ++c) {
        if (blocks[c].count == 0) continue;
        // A block of more rows than one grid takes is split (2^31 - 1 rows per launch).
        size_t done = 0;
        while (done < blocks[c].count) {
            const size_t rows = std::min<size_t>(blocks[c].count - done, 0x7fffffffu - p.firstRow[p.blocks]);
            p.srcRow[p.blocks] = blocks[c].srcRow + done;
            p.dstRow[p.blocks] = blocks[c].dstRow + done;
            p.offsetIndex[p.blocks] = blocks[c].offsetIndex;
            p.firstRow[p.blocks + 1] = p.firstRow[p.blocks] + static_cast<unsigned>(rows);
            ++p.blocks;
            done += rows;
            if (p.blocks == kMaxBlocks || p.firstRow[p.blocks] == 0x7fffffffu) {
                launch();
                p.firstRow[0] = 0;
            }
        }
    }
    launch();
}

} // namespace hearsay::cuda
