// Where the special tokens of a Whisper vocabulary sit, from the model's n_vocab alone, and the
// language codes in token order. The model loader and the test-model writer need these before
// (and without) a Tokenizer; core/text's SpecialTokens gives the same numbers.
#pragma once

#include "core/model/whisper_config.h"

#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

struct ModelTokenIds {
    int ordinaryCount = 50257;  // ordinary BPE tokens: 50256 English-only, 50257 multilingual
    int eot = 50257;            // <|endoftext|>
    int sot = 50258;            // <|startoftranscript|>
    int firstLanguage = 50259;  // <|en|>
    int languageCount = 99;     // 100 for large-v3
    int translate = 50358;
    int transcribe = 50359;
    int startOfLm = 50360;
    int startOfPrev = 50361;
    int noSpeech = 50362;       // <|nocaptions|> in HF files, <|nospeech|> in tiktoken
    int noTimestamps = 50363;
    int timestampBegin = 50364; // <|0.00|> ... <|30.00|> (1501 tokens)

    static ModelTokenIds forConfig(const WhisperConfig& config);
};

// Whisper's language codes in token order ("en", "zh", ..., "yue"): 100 entries.
const std::vector<std::string_view>& whisperLanguageCodes();

} // namespace hearsay
