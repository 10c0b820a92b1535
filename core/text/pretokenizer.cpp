// The GPT-2 pattern as a hand-written scanner (see pretokenizer.h). Each branch below is one
// alternative of the pattern, tried in the pattern's order.
#include "core/text/pretokenizer.h"

#include "core/text/unicode_class.h"
#include "core/text/utf8.h"

namespace hearsay {
namespace {

struct Char {
    CharClass cls;
    size_t length;
};

Char charAt(std::string_view text, size_t pos) {
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c < 0x80) return {charClass(c), 1};
    const Utf8Char u = decodeUtf8(text, pos);
    if (u.status != Utf8Char::Status::Valid) return {CharClass::Other, u.length};
    return {charClass(u.codePoint), u.length};
}

// End of the run of characters of class cls starting at pos.
size_t runEnd(std::string_view text, size_t pos, CharClass cls) {
    while (pos < text.size()) {
        const Char c = charAt(text, pos);
        if (c.cls != cls) break;
        pos += c.length;
    }
    return pos;
}

// Length of a contraction ('s 't 're 've 'm 'll 'd, lower case only) at pos, or 0.
size_t contractionLength(std::string_view text, size_t pos) {
    const std::string_view rest = text.substr(pos + 1);
    if (rest.empty()) return 0;
    switch (rest[0]) {
    case 's': case 't': case 'm': case 'd':
        return 2;
    case 'r': case 'v':
        return rest.size() >= 2 && rest[1] == 'e' ? 3 : 0;
    case 'l':
        return rest.size() >= 2 && rest[1] == 'l' ? 3 : 0;
    default:
        return 0;
    }
}

} // namespace

size_t gpt2PieceEnd(std::string_view text, size_t pos) {
    const size_t n = text.size();
    if (text[pos] == '\'') {
        if (const size_t len = contractionLength(text, pos)) return pos + len;
    }

    const Char first = charAt(text, pos);
    // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+" with the optional space present.
    if (text[pos] == ' ' && pos + 1 < n) {
        const Char next = charAt(text, pos + 1);
        if (next.cls != CharClass::Space) return runEnd(text, pos + 1, next.cls);
    }
    // The same three without the space.
    if (first.cls != CharClass::Space) return runEnd(text, pos, first.cls);

    // "\s+(?!\S)": the whitespace run, minus its last character when a non-space follows
    // (that character then starts the next piece, e.g. the space of " word").
    size_t last = pos;  // start of the run's last character
    size_t end = pos + first.length;
    while (end < n) {
        const Char c = charAt(text, end);
        if (c.cls != CharClass::Space) break;
        last = end;
        end += c.length;
    }
    if (end == n) return end;
    if (last > pos) return last;
    // "\s+": a single whitespace character before a non-space.
    return end;
}

} // namespace hearsay
