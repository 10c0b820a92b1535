// ggml's block formats (QK = 32): float32 -> blocks (the writer of quantised test models)
// and blocks -> float32 (convertToFloat), bit-compatible with ggml's reference functions.
#pragma once

#include "core/model/tensor.h"

#include <cstddef>
#include <cstdint>

namespace hearsay {

constexpr int64_t kQuantBlock = 32;

// Block layouts, little-endian, no padding:
//   q4_0: fp16 d, 16 bytes of nibbles                x = (q - 8) * d
//   q4_1: fp16 d, fp16 m, 16 bytes of nibbles        x = q * d + m
//   q5_0: fp16 d, uint32 qh, 16 bytes of nibbles     x = (q - 16) * d     (bit 4 of q in qh)
//   q5_1: fp16 d, fp16 m, uint32 qh, 16 bytes        x = q * d + m
//   q8_0: fp16 d, 32 int8                            x = q * d
// Nibble j of the 16 bytes holds element j (low nibble) and element j + 16 (high nibble).
bool isQuantized(DType type);

// `n` must be a multiple of 32; `out` receives dtypeBytes(type, n) bytes.
void quantizeRow(DType type, const float* x, int64_t n, std::byte* out);
// `n` must be a multiple of 32; reads dtypeBytes(type, n) bytes.
void dequantizeRow(DType type, const std::byte* in, int64_t n, float* out);

} // namespace hearsay
