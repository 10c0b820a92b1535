// Rows of ggml blocks (32 weights each) times one vector with AVX-512, four rows per iteration
// sharing each load of x: the loop of gemvQ8 (cpu_simd.cpp) and gemvQ5 / gemvQ5_1 (cpu_q5.cpp), with the
// block format's kernel as a template argument (its products with the block's x, x0 and x1, summed
// and scaled by the block's d into the total). Rows are prefetched as they are read (row_prefetch.h).
#pragma once

#include "core/backend/row_prefetch.h"
#include "core/backend/x86_simd.h"

#include <cstddef>
#include <cstdint>

#ifdef HEARSAY_SIMD_X86

namespace hearsay::simd {

using BlockKernelAvx512 = __m512 (*)(__m512 x0, __m512 x1, const uint8_t* block, __m512 total);

template <BlockKernelAvx512 Block, size_t BlockBytes>
__attribute__((target("avx512f,f16c"))) inline void gemvBlocksAvx512(const float* x, const uint8_t* w, size_t n,
                                                                     size_t rows, float* y) {
    const size_t blocks = n / 32, rowBytes = blocks * BlockBytes;
    const uint8_t* end = w + rows * rowBytes;
    // Each row's blocks are prefetched as they are read (a block is shorter than a line), groupPrefetchDistance ahead.
    const size_t ahead = groupPrefetchDistance(4 * rowBytes);
    size_t o = 0;
    for (; o + 4 <= rows; o += 4) {
        const uint8_t* r = w + o * rowBytes;
        const bool prefetch = size_t(end - r) >= ahead + 4 * rowBytes;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
        for (size_t b = 0; b < blocks; ++b) {
            const __m512 x0 = _mm512_loadu_ps(x + b * 32), x1 = _mm512_loadu_ps(x + b * 32 + 16);
            const size_t at = b * BlockBytes;
            if (prefetch) prefetchFourRows(r + at, rowBytes, ahead);
            a0 = Block(x0, x1, r + at, a0);
            a1 = Block(x0, x1, r + rowBytes + at, a1);
            a2 = Block(x0, x1, r + 2 * rowBytes + at, a2);
            a3 = Block(x0, x1, r + 3 * rowBytes + at, a3);
        }
        y[o] = _mm512_reduce_add_ps(a0);
        y[o + 1] = _mm512_reduce_add_ps(a1);
        y[o + 2] = _mm512_reduce_add_ps(a2);
        y[o + 3] = _mm512_reduce_add_ps(a3);
    }
    for (; o < rows; ++o) {  // the last rows, one at a time
        const uint8_t* r = w + o * rowBytes;
        __m512 a = _mm512_setzero_ps();
        for (size_t b = 0; b < blocks; ++b)
            a = Block(_mm512_loadu_ps(x + b * 32), _mm512_loadu_ps(x + b * 32 + 16), r + b * BlockBytes, a);
        y[o] = _mm512_reduce_add_ps(a);
    }
}

} // namespace hearsay::simd

#endif
