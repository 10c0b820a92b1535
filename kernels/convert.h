// kernels/convert: float32 -> IEEE half casts on the device, for the activations that enter an
// fp16 GEMM (the weights are converted once on the host, at load).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace hearsay::cuda {

// y[i] = half(x[i]) rounded to nearest even, saturated to ±65504 (a value beyond the half range
// becomes the largest half instead of infinity, which would turn the GEMM's sums into NaN);
// NaN stays NaN. i < n.
void castToHalf(const float* x, __half* y, size_t n, cudaStream_t stream);

} // namespace hearsay::cuda
