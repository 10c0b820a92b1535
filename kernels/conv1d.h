// kernels/conv1d: the im2col half of the encoder's kernel-3, padding-1 convolutions (the other
// half is a GEMM through cuBLAS, in CudaBackend::conv1d).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace hearsay::cuda {

// col[t][c·3 + k] = x[t·stride + k - 1][c], zero outside [0, length); t < outLength.
// x [length][channels] (time-major), col [outLength][channels·3]: float32, or half for an fp16
// GEMM (rounded to nearest even, saturated to ±65504 as castToHalf does).
void im2col3(const float* x, int length, int channels, int stride, int outLength, float* col, cudaStream_t stream);
void im2col3(const float* x, int length, int channels, int stride, int outLength, __half* col, cudaStream_t stream);

} // namespace hearsay::cuda
