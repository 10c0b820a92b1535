// JSON text in and out, on nlohmann::json. Model configs, safetensors headers, tokenizer files
// and the files users hand us are untrusted: parseJson() turns a corrupt or hostile document into
// an error naming its byte offset (never an exception, never a deep recursion), and dumpJson()
// writes any document, even one holding bytes that are not UTF-8, without throwing.
// Reading a parsed document stays ordinary nlohmann code; readers must not use const
// operator[] on a key that may be missing, nor get<T>() on a value whose type they have not
// checked (value(), contains(), find() and the is_*() tests instead).
#pragma once

#include "core/util/result.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace hearsay {

struct JsonLimits {
    size_t maxBytes = size_t(256) << 20;  // the whole text
    int maxDepth = 256;                   // arrays and objects inside one another
};

// One RFC 8259 document (UTF-8, no comments, nothing but white space after the value). Errors
// read "invalid JSON at byte N: why", N counted from 0; numbers keep their kind (a non-negative
// integer up to 2^64 - 1 is unsigned, a negative one signed, anything else a double); a
// duplicated key keeps its last value.
Result<nlohmann::json> parseJson(std::string_view text, const JsonLimits& limits = {});

// Compact when indent < 0, else pretty-printed with that many spaces. Bytes that are not UTF-8
// are written as U+FFFD; integers stay integers, doubles keep a fraction or exponent ("1.0").
std::string dumpJson(const nlohmann::json& value, int indent = -1);

} // namespace hearsay
