// GPT-2 byte <-> Unicode mapping (see byte_unicode.h).
#include "core/text/byte_unicode.h"

#include "core/util/utf8.h"

#include <unordered_map>

namespace hearsay {

std::string bytesToVocabText(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) appendUtf8(out, byteToUnicode(b));
    return out;
}

std::optional<std::string> vocabTextToBytes(std::string_view text) {
    static const std::unordered_map<char32_t, unsigned char> inverse = [] {
        std::unordered_map<char32_t, unsigned char> m;
        for (int b = 0; b < 256; ++b) m[byteToUnicode(static_cast<unsigned char>(b))] = static_cast<unsigned char>(b);
        return m;
    }();
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        char32_t cp;
        size_t len;
        // Only well-formed 1- and 2-byte characters can be in the map (all below U+0144); a
        // lead byte with a bad continuation byte or an overlong form is rejected.
        const auto continuation = [&](size_t k) { return (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80; };
        if (c < 0x80) { cp = c; len = 1; }
        else if (c >= 0xC2 && c <= 0xDF && i + 1 < text.size() && continuation(i + 1)) {
            cp = char32_t(c & 0x1F) << 6 | (text[i + 1] & 0x3F);
            len = 2;
        } else return std::nullopt;
        auto it = inverse.find(cp);
        if (it == inverse.end()) return std::nullopt;
        out += char(it->second);
        i += len;
    }
    return out;
}

} // namespace hearsay
