// The three Unicode character classes that GPT-2's pre-tokenisation pattern distinguishes
// (\p{L}, \p{N}, \s), from generated tables, since core uses no regex or ICU library.
#pragma once

#include <cstdint>

namespace hearsay {

enum class CharClass : uint8_t {
    Other,   // everything else: punctuation, symbols, marks, controls, unassigned
    Letter,  // general category L* (Lu, Ll, Lt, Lm, Lo)
    Number,  // general category N* (Nd, Nl, No)
    Space,   // the White_Space property, which is what Rust's and tiktoken's \s mean
};

CharClass charClass(char32_t codePoint);
// Unicode version the tables were generated from ("16.0.0"); tiktoken 0.12 uses the same.
const char* unicodeTablesVersion();

} // namespace hearsay
