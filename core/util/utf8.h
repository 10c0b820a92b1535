// UTF-8 by hand where a code point at a time is needed (the tokenizer's byte alphabet, the typers'
// keysyms): appending one code point, and splitting text into code points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

// "U+00E9": a code point as messages name it (four hex digits at least).
inline std::string codePointName(uint32_t cp) {
    static const char digits[] = "0123456789ABCDEF";
    std::string hex;
    for (int shift = 20; shift >= 0; shift -= 4)
        if (shift < 16 || (cp >> shift) != 0) hex += digits[(cp >> shift) & 0xF];
    return "U+" + hex;
}

// Appends code point `cp` (at most U+10FFFF) as UTF-8.
inline void appendUtf8(std::string& s, char32_t cp) {
    if (cp < 0x80) {
        s += char(cp);
    } else if (cp < 0x800) {
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += char(0xE0 | (cp >> 12));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    } else {
        s += char(0xF0 | (cp >> 18));
        s += char(0x80 | ((cp >> 12) & 0x3F));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    }
}

// The code points of `s`; `badByte` (when given) gets the offset of the first byte that does not
// start a well-formed sequence, and nothing is returned then.
inline std::optional<std::vector<uint32_t>> codePointsOf(std::string_view s, size_t* badByte = nullptr) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const int length = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        bool ok = length != 0 && i + size_t(length) <= s.size();
        uint32_t cp = length == 1 ? b : b & (0x7F >> length);
        for (int k = 1; ok && k < length; ++k) {
            const auto c = static_cast<unsigned char>(s[i + size_t(k)]);
            ok = (c & 0xC0) == 0x80;
            cp = (cp << 6) | (c & 0x3F);
        }
        if (!ok) {
            if (badByte) *badByte = i;
            return std::nullopt;
        }
        out.push_back(cp);
        i += size_t(length);
    }
    return out;
}

} // namespace hearsay
