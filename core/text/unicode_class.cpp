// Character class lookup: a table for ASCII, a binary search over generated ranges above it.
#include "core/text/unicode_class.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace hearsay {
namespace {

struct CharRange {
    char32_t first;
    char32_t last;
    CharClass cls;
};

#include "core/text/unicode_tables.inc"

constexpr std::array<CharClass, 128> makeAsciiTable() {
    std::array<CharClass, 128> table{};
    for (const CharRange& r : kCharRanges) {
        if (r.first >= 128) break;
        for (char32_t c = r.first; c <= r.last && c < 128; ++c) table[c] = r.cls;
    }
    return table;
}
constexpr std::array<CharClass, 128> kAscii = makeAsciiTable();

} // namespace

CharClass charClass(char32_t codePoint) {
    if (codePoint < 128) return kAscii[codePoint];
    // First range whose last code point is >= codePoint.
    const CharRange* end = std::end(kCharRanges);
    const CharRange* it = std::lower_bound(std::begin(kCharRanges), end, codePoint,
                                           [](const CharRange& r, char32_t c) { return r.last < c; });
    if (it != end && it->first <= codePoint) return it->cls;
    return CharClass::Other;
}

const char* unicodeTablesVersion() { return kUnicodeTablesVersion; }

} // namespace hearsay
