// Views of weight tensors as stored in a model file (usually inside a memory map).
// Shapes use PyTorch order: outermost dimension first, e.g. a Linear weight is [out, in].
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

enum class DType { F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 };

std::string_view dtypeName(DType type);
// The most elements a model file's tensor may declare (2^40): beyond it the file is refused as
// corrupt before any size arithmetic can overflow.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 40;
// Elements per block and bytes per block (1 and sizeof(element) for unquantised types).
int64_t dtypeBlockElements(DType type);
int64_t dtypeBlockBytes(DType type);
// Bytes needed for `elements` values, or -1 when `elements` is not a whole number of blocks.
int64_t dtypeBytes(DType type, int64_t elements);

struct TensorView {
    std::string name;             // name in the source file
    DType dtype = DType::F32;
    std::vector<int64_t> shape;   // PyTorch order
    const std::byte* data = nullptr;
    size_t bytes = 0;

    bool empty() const { return data == nullptr; }
    int64_t elements() const {
        int64_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
    std::string shapeString() const;  // "[384, 80, 3]"
};

// Converts any supported dtype to float32 (dequantising block formats).
// `out` must hold view.elements() floats.
void convertToFloat(const TensorView& view, float* out);

// Index of the first NaN or infinite element, if any. For block formats the scales (d, m)
// are what can be non-finite; the index is then the first element of that block.
std::optional<int64_t> findNonFinite(const TensorView& view);

} // namespace hearsay
