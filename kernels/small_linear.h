// kernels/small_linear: y = x · Wᵀ (+ bias) (+ y) for a few rows of x (a decode step: one row per
// beam) against a half weight, in one launch. The weight is read once, 16 bytes per lane per load,
// so the op runs at memory speed; x stays float32 (no cast pass; no rounding of x to half), the
// products and sums are float32, and the bias and the residual are added in the same pass.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace hearsay::cuda {

constexpr int kSmallLinearMaxRows = 8;
constexpr int kSmallLinearMaxTargets = 4;

// One product: w [out][in] (half), bias [out] or null, y [rows][out];
// y[r][o] = Σ_i x[r][i] w[o][i] + bias[o] (+ y[r][o] when accumulate), or with gelu
// y[r][o] = GELU(Σ_i x[r][i] w[o][i] + bias[o]) (exact GELU; gelu and accumulate exclude each other).
struct SmallLinearTarget {
    const __half* w = nullptr;
    const float* bias = nullptr;
    float* y = nullptr;
    int out = 0;
    bool accumulate = false;
    bool gelu = false;
};

// x [rows][in] against 1..kSmallLinearMaxTargets targets in one launch (an attention block's q,
// k and v). Any alignment: 16-byte aligned x and weight rows (in % 8 == 0) take the vector path.
// 1 ≤ rows ≤ kSmallLinearMaxRows, in ≥ 1, out ≥ 1 (checked by the caller).
void smallLinear(const float* x, const SmallLinearTarget* targets, int targetCount, int rows, int in,
                 cudaStream_t stream);
inline void smallLinear(const float* x, const __half* w, const float* bias, float* y, int rows, int in, int out,
                        bool accumulate, cudaStream_t stream) {
    const SmallLinearTarget target{w, bias, y, out, accumulate};
    smallLinear(x, &target, 1, rows, in, stream);
}

} // namespace hearsay::cuda
