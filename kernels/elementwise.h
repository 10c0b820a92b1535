// Elementwise kernels: exact GELU, x += y, and the bias broadcast that precedes a GEMM.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace hearsay::cuda {

// x[i] = 0.5 x (1 + erf(x / √2)), in place, i < n.
void gelu(float* x, size_t n, cudaStream_t stream);
// x[i] += y[i], i < n (y float32, or half: an fp16 positional table).
void add(float* x, const float* y, size_t n, cudaStream_t stream);
void add(float* x, const __half* y, size_t n, cudaStream_t stream);
// y[rows][cols] = bias[cols] (accumulate: y += bias), per row.
void broadcastBias(float* y, const float* bias, int rows, int cols, bool accumulate, cudaStream_t stream);

} // namespace hearsay::cuda
