// Quantisation and dequantisation of ggml's q4_0, q4_1, q5_0, q5_1 and q8_0 blocks,
// following ggml's quantize_row_*_reference / dequantize_row_* arithmetic.
#include "core/model/quantize.h"

#include "core/util/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hearsay {
namespace {

uint16_t loadU16(const std::byte* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
uint32_t loadU32(const std::byte* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
void storeU16(std::byte* p, uint16_t v) { std::memcpy(p, &v, 2); }
void storeU32(std::byte* p, uint32_t v) { std::memcpy(p, &v, 4); }

// The value of largest magnitude (with its sign), as ggml's symmetric formats use.
float signedAbsMax(const float* x) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < kQuantBlock; ++j) {
        if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    return max;
}

void minMax(const float* x, float& min, float& max) {
    min = x[0];
    max = x[0];
    for (int j = 1; j < kQuantBlock; ++j) {
        min = std::min(min, x[j]);
        max = std::max(max, x[j]);
    }
}

void quantizeQ4_0(const float* x, std::byte* y) {
    const float d = signedAbsMax(x) / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    storeU16(y, floatToHalf(d));
    auto* qs = reinterpret_cast<uint8_t*>(y + 2);
    for (int j = 0; j < 16; ++j) {
        auto q0 = std::min<int>(15, int(static_cast<int8_t>(x[j] * id + 8.5f)));
        auto q1 = std::min<int>(15, int(static_cast<int8_t>(x[j + 16] * id + 8.5f)));
        qs[j] = uint8_t(q0 | (q1 << 4));
    }
}

void quantizeQ4_1(const float* x, std::byte* y) {
    float min, max;
    minMax(x, min, max);
    const float d = (max - min) / 15.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    storeU16(y, floatToHalf(d));
    storeU16(y + 2, floatToHalf(min));
    auto* qs = reinterpret_cast<uint8_t*>(y + 4);
    for (int j = 0; j < 16; ++j) {
        auto q0 = std::min<int>(15, int(static_cast<int8_t>((x[j] - min) * id + 0.5f)));
        auto q1 = std::min<int>(15, int(static_cast<int8_t>((x[j + 16] - min) * id + 0.5f)));
        qs[j] = uint8_t(q0 | (q1 << 4));
    }
}

void quantizeQ5_0(const float* x, std::byte* y) {
    const float d = signedAbsMax(x) / -16.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    storeU16(y, floatToHalf(d));
    uint32_t qh = 0;
    auto* qs = reinterpret_cast<uint8_t*>(y + 6);
    for (int j = 0; j < 16; ++j) {
        auto q0 = uint32_t(std::min<int>(31, int(static_cast<int8_t>(x[j] * id + 16.5f))));
        auto q1 = uint32_t(std::min<int>(31, int(static_cast<int8_t>(x[j + 16] * id + 16.5f))));
        qs[j] = uint8_t((q0 & 0x0F) | ((q1 & 0x0F) << 4));
        qh |= ((q0 & 0x10u) >> 4) << j;
        qh |= ((q1 & 0x10u) >> 4) << (j + 16);
    }
    storeU32(y + 2, qh);
}

void quantizeQ5_1(const float* x, std::byte* y) {
    float min, max;
    minMax(x, min, max);
    const float d = (max - min) / 31.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    storeU16(y, floatToHalf(d));
    storeU16(y + 2, floatToHalf(min));
    uint32_t qh = 0;
    auto* qs = reinterpret_cast<uint8_t*>(y + 8);
    for (int j = 0; j < 16; ++j) {
        auto q0 = uint32_t(std::min<int>(31, int(static_cast<int8_t>((x[j] - min) * id + 0.5f))));
        auto q1 = uint32_t(std::min<int>(31, int(static_cast<int8_t>((x[j + 16] - min) * id + 0.5f))));
        qs[j] = uint8_t((q0 & 0x0F) | ((q1 & 0x0F) << 4));
        qh |= ((q0 & 0x10u) >> 4) << j;
        qh |= ((q1 & 0x10u) >> 4) << (j + 16);
    }
    storeU32(y + 4, qh);
}

void quantizeQ8_0(const float* x, std::byte* y) {
    float amax = 0.0f;
    for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    storeU16(y, floatToHalf(d));
    auto* qs = reinterpret_cast<int8_t*>(y + 2);
    for (int j = 0; j < kQuantBlock; ++j) qs[j] = static_cast<int8_t>(std::lround(x[j] * id));
}

void dequantizeBlock(DType type, const std::byte* b, float* y) {
    const float d = halfToFloat(loadU16(b));
    switch (type) {
    case DType::Q4_0: {
        auto* qs = reinterpret_cast<const uint8_t*>(b + 2);
        for (int j = 0; j < 16; ++j) {
            y[j] = float(int(qs[j] & 0x0F) - 8) * d;
            y[j + 16] = float(int(qs[j] >> 4) - 8) * d;
        }
        break;
    }
    case DType::Q4_1: {
        const float m = halfToFloat(loadU16(b + 2));
        auto* qs = reinterpret_cast<const uint8_t*>(b + 4);
        for (int j = 0; j < 16; ++j) {
            y[j] = float(qs[j] & 0x0F) * d + m;
            y[j + 16] = float(qs[j] >> 4) * d + m;
        }
        break;
    }
    case DType::Q5_0: {
        const uint32_t qh = loadU32(b + 2);
        auto* qs = reinterpret_cast<const uint8_t*>(b + 6);
        for (int j = 0; j < 16; ++j) {
            int h0 = int(((qh >> j) << 4) & 0x10);
            int h1 = int((qh >> (j + 12)) & 0x10);
            y[j] = float((int(qs[j] & 0x0F) | h0) - 16) * d;
            y[j + 16] = float((int(qs[j] >> 4) | h1) - 16) * d;
        }
        break;
    }
    case DType::Q5_1: {
        const float m = halfToFloat(loadU16(b + 2));
        const uint32_t qh = loadU32(b + 4);
        auto* qs = reinterpret_cast<const uint8_t*>(b + 8);
        for (int j = 0; j < 16; ++j) {
            int h0 = int(((qh >> j) << 4) & 0x10);
            int h1 = int((qh >> (j + 12)) & 0x10);
            y[j] = float(int(qs[j] & 0x0F) | h0) * d + m;
            y[j + 16] = float(int(qs[j] >> 4) | h1) * d + m;
        }
        break;
    }
    case DType::Q8_0: {
        auto* qs = reinterpret_cast<const int8_t*>(b + 2);
        for (int j = 0; j < kQuantBlock; ++j) y[j] = float(qs[j]) * d;
        break;
    }
    default:
        break;
    }
}

} // namespace

bool isQuantized(DType type) {
    return type == DType::Q4_0 || type == DType::Q4_1 || type == DType::Q5_0 || type == DType::Q5_1 ||
           type == DType::Q8_0;
}

void quantizeRow(DType type, const float* x, int64_t n, std::byte* out) {
    const int64_t blockBytes = dtypeBlockBytes(type);
    for (int64_t b = 0; b < n / kQuantBlock; ++b) {
        const float* xb = x + b * kQuantBlock;
        std::byte* yb = out + b * blockBytes;
        switch (type) {
        case DType::Q4_0: quantizeQ4_0(xb, yb); break;
        case DType::Q4_1: quantizeQ4_1(xb, yb); break;
        case DType::Q5_0: quantizeQ5_0(xb, yb); break;
        case DType::Q5_1: quantizeQ5_1(xb, yb); break;
        case DType::Q8_0: quantizeQ8_0(xb, yb); break;
        default: break;
        }
    }
}

void dequantizeRow(DType type, const std::byte* in, int64_t n, float* out) {
    const int64_t blockBytes = dtypeBlockBytes(type);
    for (int64_t b = 0; b < n / kQuantBlock; ++b) dequantizeBlock(type, in + b * blockBytes, out + b * kQuantBlock);
}

} // namespace hearsay
