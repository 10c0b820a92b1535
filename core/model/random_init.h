// The deterministic random-weight scheme shared by make-test-model and the Python reference
// harness: a value depends only on (seed, Hugging Face tensor name, element index), so both
// sides produce bit-identical float32 weights without any shared state or libm call.
#pragma once

#include <cstdint>
#include <string_view>

namespace hearsay {

// FNV-1a 64-bit of the bytes of `s`.
uint64_t fnv1a64(std::string_view s);

// Element `index` (row-major PyTorch order) of tensor `name`: uniform with the given mean and
// standard deviation, mean + std * sqrt(3) * (2u - 1) with u = splitmix64(...) >> 40 / 2^24.
float initValue(uint64_t seed, std::string_view name, uint64_t index, double mean, double stddev);

// Fills out[0..count) with elements first..first+count of the tensor.
void fillInitValues(uint64_t seed, std::string_view name, uint64_t first, uint64_t count, double mean,
                    double stddev, float* out);

} // namespace hearsay
