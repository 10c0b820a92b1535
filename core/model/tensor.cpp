// Element types of stored tensors: sizes, names, conversion to float32 and a finiteness scan.
#include "core/model/tensor.h"

#include "core/model/quantize.h"
#include "core/util/half.h"

#include <algorithm>
#include <cstring>

namespace hearsay {

std::string_view dtypeName(DType type) {
    switch (type) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::Q4_0: return "q4_0";
    case DType::Q4_1: return "q4_1";
    case DType::Q5_0: return "q5_0";
    case DType::Q5_1: return "q5_1";
    case DType::Q8_0: return "q8_0";
    }
    return "?";
}

int64_t dtypeBlockElements(DType type) { return isQuantized(type) ? kQuantBlock : 1; }

int64_t dtypeBlockBytes(DType type) {
    switch (type) {
    case DType::F32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    case DType::Q4_0: return 2 + 16;
    case DType::Q4_1: return 2 + 2 + 16;
    case DType::Q5_0: return 2 + 4 + 16;
    case DType::Q5_1: return 2 + 2 + 4 + 16;
    case DType::Q8_0: return 2 + 32;
    }
    return 0;
}

int64_t dtypeBytes(DType type, int64_t elements) {
    const int64_t block = dtypeBlockElements(type);
    if (elements < 0 || elements % block != 0) return -1;
    return elements / block * dtypeBlockBytes(type);
}

std::string TensorView::shapeString() const {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

void convertToFloat(const TensorView& view, float* out) {
    const int64_t n = view.elements();
    const std::byte* p = view.data;
    switch (view.dtype) {
    case DType::F32:
        std::memcpy(out, p, size_t(n) * 4);
        break;
    case DType::F16:
        for (int64_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            out[i] = halfToFloat(h);
        }
        break;
    case DType::BF16:
        for (int64_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            out[i] = bf16ToFloat(h);
        }
        break;
    default:
        dequantizeRow(view.dtype, p, n, out);
        break;
    }
}

namespace {

// The first of n words at p whose exponent bits (`exponent`) are all set (an Inf or a NaN); each
// chunk is first checked by a loop without early exit, which the compiler vectorises: a model's
// weights are read at memory speed, not one branch per element.
template <typename Word>
std::optional<int64_t> firstAllSet(const std::byte* p, int64_t n, Word exponent) {
    constexpr int64_t kChunk = 4096;
    const auto at = [&](int64_t i) {
        Word w;
        std::memcpy(&w, p + sizeof(Word) * i, sizeof w);
        return (w & exponent) == exponent;
    };
    for (int64_t start = 0; start < n; start += kChunk) {
        const int64_t end = std::min(n, start + kChunk);
        unsigned hits = 0;
        for (int64_t i = start; i < end; ++i)
            hits |= unsigned(at(i));
        if (hits == 0) continue;
        for (int64_t i = start; i < end; ++i) {
            if (at(i)) return i;
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<int64_t> findNonFinite(const TensorView& view) {
    const int64_t n = view.elements();
    const std::byte* p = view.data;
    auto half16NonFinite = [](const std::byte* q) {
        uint16_t h;
        std::memcpy(&h, q, 2);
        return (h & 0x7C00) == 0x7C00;
    };
    switch (view.dtype) {
    case DType::F32: return firstAllSet<uint32_t>(p, n, 0x7F800000u);
    case DType::F16: return firstAllSet<uint16_t>(p, n, 0x7C00);
    case DType::BF16: return firstAllSet<uint16_t>(p, n, 0x7F80);
    default: {
        // d (and m for the _1 formats) are the first fp16 values of each block.
        const bool hasMin = view.dtype == DType::Q4_1 || view.dtype == DType::Q5_1;
        const int64_t blockBytes = dtypeBlockBytes(view.dtype);
        for (int64_t b = 0; b < n / kQuantBlock; ++b) {
            const std::byte* q = p + b * blockBytes;
            if (half16NonFinite(q) || (hasMin && half16NonFinite(q + 2))) return b * kQuantBlock;
        }
        return std::nullopt;
    }
    }
}

} // namespace hearsay
