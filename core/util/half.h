// IEEE half and bfloat16 conversions on the host (bit-exact, round to nearest even).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hearsay {

inline float halfToFloat(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t mant = h & 0x3FF;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else { // subnormal: normalise
            exp = 127 - 15 + 1;
            while ((mant & 0x400) == 0) {
                mant <<= 1;
                --exp;
            }
            mant &= 0x3FF;
            bits = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// Element i of IEEE half values at p, which need not be 2-byte aligned (a tensor read from a
// model file that stores it at an odd offset): the bytes are copied, never loaded through a
// misaligned uint16_t.
inline float halfAt(const uint16_t* p, size_t i) {
    uint16_t bits;
    std::memcpy(&bits, reinterpret_cast<const unsigned char*>(p) + 2 * i, sizeof bits);
    return halfToFloat(bits);
}

// The IEEE half at byte p (a block's scale inside a ggml block, at any alignment).
inline float halfFromBytes(const void* p) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return halfToFloat(bits);
}

inline uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t absx = x & 0x7FFFFFFF;
    if (absx >= 0x7F800000) { // inf or nan
        return uint16_t(sign | 0x7C00 | (absx > 0x7F800000 ? 0x200 : 0));
    }
    if (absx >= 0x477FF000) return uint16_t(sign | 0x7C00); // overflow to inf
    if (absx < 0x38800000) { // subnormal or zero in half
        if (absx < 0x33000000) return uint16_t(sign);
        uint32_t e = absx >> 23;
        uint32_t m = (absx & 0x7FFFFF) | 0x800000;
        uint32_t shift = 126 - e; // half subnormal = round(value * 2^24)
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (q & 1))) ++q;
        return uint16_t(sign | q);
    }
    uint32_t e = (absx >> 23) - 112;
    uint32_t m = absx & 0x7FFFFF;
    uint32_t h = (e << 10) | (m >> 13);
    uint32_t rem = m & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
    return uint16_t(sign | h);
}

inline float bf16ToFloat(uint16_t b) {
    uint32_t bits = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFF) > 0x7F800000) return uint16_t((x >> 16) | 0x40); // quiet nan
    uint32_t lsb = (x >> 16) & 1;
    x += 0x7FFF + lsb;
    return uint16_t(x >> 16);
}

} // namespace hearsay
