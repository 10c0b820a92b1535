// UTF-8 decoding and replacement (see utf8.h); the table of well-formed sequences is Table 3-7
// of the Unicode Standard.
#include "core/text/utf8.h"

namespace hearsay {

Utf8Char decodeUtf8(std::string_view text, size_t pos) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    if (lead < 0x80) return {lead, 1, Utf8Char::Status::Valid};

    size_t need = 0;          // continuation bytes after the lead
    unsigned char lo = 0x80;  // allowed range of the first continuation byte
    unsigned char hi = 0xBF;
    char32_t cp = 0;
    if (lead >= 0xC2 && lead <= 0xDF) { need = 1; cp = lead & 0x1F; }
    else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 2; cp = lead & 0x0F;
        if (lead == 0xE0) lo = 0xA0;       // no overlongs
        else if (lead == 0xED) hi = 0x9F;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 3; cp = lead & 0x07;
        if (lead == 0xF0) lo = 0x90;       // no overlongs
        else if (lead == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return {0, 1, Utf8Char::Status::Invalid};  // 80..C1, F5..FF never start a character
    }

    for (size_t k = 1; k <= need; ++k) {
        if (pos + k >= text.size()) return {0, k, Utf8Char::Status::Truncated};
        const unsigned char c = byte(pos + k);
        const unsigned char min = k == 1 ? lo : 0x80;
        const unsigned char max = k == 1 ? hi : 0xBF;
        if (c < min || c > max) return {0, k, Utf8Char::Status::Invalid};
        cp = (cp << 6) | (c & 0x3F);
    }
    return {cp, need + 1, Utf8Char::Status::Valid};
}

std::string replaceInvalidUtf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    size_t pos = 0;
    while (pos < bytes.size()) {
        // ASCII runs are the common case.
        if (static_cast<unsigned char>(bytes[pos]) < 0x80) {
            out += bytes[pos++];
            continue;
        }
        const Utf8Char c = decodeUtf8(bytes, pos);
        if (c.status == Utf8Char::Status::Valid) out.append(bytes.substr(pos, c.length));
        else appendUtf8(out, 0xFFFD);
        pos += c.length;
    }
    return out;
}

size_t completeUtf8Prefix(std::string_view bytes) {
    // An unfinished character is at most 3 bytes long, so only the tail needs a look; a lead
    // byte found there either starts a truncated character or none is pending.
    const size_t n = bytes.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
        const size_t pos = n - back;
        const unsigned char c = static_cast<unsigned char>(bytes[pos]);
        if ((c & 0xC0) == 0x80) continue;  // continuation byte: look further back
        if (c < 0x80) return n;
        return decodeUtf8(bytes, pos).status == Utf8Char::Status::Truncated ? pos : n;
    }
    return n;
}

} // namespace hearsay
