// The gzip compression ratio the reference uses to detect repetitive (looping) text:
// UTF-8 bytes / zlib-compressed bytes at the default level.
#pragma once

#include <string_view>

namespace hearsay {

// 0 for empty text (the reference would divide 0 by a small positive size too).
double compressionRatio(std::string_view text);

} // namespace hearsay
