// NumPy .npy arrays (format 1.0/2.0, little-endian, C order): the golden files written by
// the reference harness (tests/reference) and read by the C++ tests.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace hearsay {

struct NpyArray {
    std::vector<int64_t> shape;
    std::vector<float> f32;    // filled for '<f4' and '<f2' and '<f8' (converted)
    std::vector<int64_t> i64;  // filled for '<i4' and '<i8'
    bool isFloat() const { return !f32.empty() || (i64.empty() && shape.size()); }
    int64_t elements() const {
        int64_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
};

Result<NpyArray> readNpy(const std::filesystem::path& path);
Result<void> writeNpy(const std::filesystem::path& path, const std::vector<int64_t>& shape,
                      const float* data);

} // namespace hearsay
