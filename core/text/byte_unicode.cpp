// GPT-2 byte <-> Unicode mapping (see byte_unicode.h).
#include "core/text/byte_unicode.h"

#include <unordered_map>

namespace hearsay {
namespace {

void appendUtf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

} // namespace

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
        if (c < 0x80) { cp = c; len = 1; }
        else if ((c & 0xE0) == 0xC0 && i + 1 < text.size()) { cp = char32_t(c & 0x1F) << 6 | (text[i + 1] & 0x3F); len = 2; }
        else if ((c & 0xF0) == 0xE0 && i + 2 < text.size()) {
            cp = char32_t(c & 0x0F) << 12 | char32_t(text[i + 1] & 0x3F) << 6 | (text[i + 2] & 0x3F);
            len = 3;
        } else return std::nullopt;
        auto it = inverse.find(cp);
        if (it == inverse.end()) return std::nullopt;
        out += char(it->second);
        i += len;
    }
    return out;
}

} // namespace hearsay
