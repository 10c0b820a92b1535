// UTF-8 decoding with the rules Python's decoder follows: well-formed sequences only (no
// overlongs, surrogates or code points above U+10FFFF), and errors="replace" that replaces
// each maximal invalid subpart with one U+FFFD.
#pragma once

#include "core/util/utf8.h"  // appendUtf8

#include <cstddef>
#include <string>
#include <string_view>

namespace hearsay {

struct Utf8Char {
    enum class Status { Valid, Invalid, Truncated };
    char32_t codePoint = 0;  // meaningful when Valid
    size_t length = 1;       // bytes consumed: the character, or the maximal invalid subpart (>= 1)
    Status status = Status::Valid;
};

// Decodes the character starting at text[pos] (pos < text.size()). Truncated: a well-formed
// prefix of a multibyte character cut off by the end of text.
Utf8Char decodeUtf8(std::string_view text, size_t pos);

// bytes.decode("utf-8", errors="replace") re-encoded as UTF-8.
std::string replaceInvalidUtf8(std::string_view bytes);

// Length of the longest prefix of bytes that does not end inside an unfinished (but so far
// well-formed) multibyte character: what a streaming decoder may show now.
size_t completeUtf8Prefix(std::string_view bytes);

} // namespace hearsay
