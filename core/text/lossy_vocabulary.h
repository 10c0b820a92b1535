// Vocabularies that went through a UTF-8 decoder with errors="replace" (whisper.cpp's test
// models, ../shared/data/ggml-vocab-*.bin) store each token that is not valid UTF-8 on its own
// as U+FFFD. This finds such tokens, restores what can be restored, and marks the rest.
#pragma once

#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

// U+FFFD in UTF-8: what such a decoder put in place of the bytes it could not read.
constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

struct LossyVocabularyReport {
    int restoredBytes = 0;       // single-byte tokens (ids < 256) given back their byte
    std::vector<int> unusable;   // ids whose bytes are lost: duplicates containing U+FFFD
};

// Whisper's ids 0..255 are the 256 bytes in GPT-2's byte-to-unicode order, so a U+FFFD there
// is restored. Other tokens that contain U+FFFD and share their bytes with another token
// cannot be told apart; they are listed as unusable (decoding still shows U+FFFD for them, as
// the text would; encoding must not produce them). Fails on a duplicate without U+FFFD.
Result<LossyVocabularyReport> repairLossyVocabulary(std::vector<std::string>& tokens);

// The byte that GPT-2's vocabulary assigns to id (0..255).
unsigned char gpt2ByteForId(int id);

} // namespace hearsay
