// Small string helpers shared across the core.
#pragma once

#include <string>
#include <string_view>

namespace hearsay {

// `s` without leading and trailing ASCII whitespace (as Python's str.strip() with no argument
// does for ASCII text, which the transcripts' and tokenizer's callers compare against).
inline std::string stripWhitespace(std::string_view s) {
    constexpr std::string_view ws = " \t\n\r\f\v";
    const size_t first = s.find_first_not_of(ws);
    if (first == std::string_view::npos) return {};
    return std::string(s.substr(first, s.find_last_not_of(ws) - first + 1));
}

// Whether `needle` occurs in `haystack` (std::string_view::contains from C++23).
inline bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

} // namespace hearsay
