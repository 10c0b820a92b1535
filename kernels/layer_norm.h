// kernels/layer_norm: y = (x - mean) / sqrt(var + eps) · gamma + beta, one row per block.
#pragma once

#include <cuda_runtime.h>

namespace hearsay::cuda {

// x, y [rows][cols] (y may equal x); gamma, beta [cols].
void layerNorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols, float eps,
               cudaStream_t stream);

} // namespace hearsay::cuda
