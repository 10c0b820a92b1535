// Spoken-language detection for multilingual models: the decoder's logits after
// <|startoftranscript|> alone, every non-language token masked, softmax over the languages.
#pragma once

#include "core/decoding/decoding_options.h"
#include "core/text/tokenizer.h"
#include "core/util/result.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

class InferenceSession;

struct LanguageProbability {
    std::string code;   // "en"
    int token = 0;      // <|en|>
    float probability = 0.0f;
};

struct LanguageDetection {
    std::string code;                            // the most probable language
    int token = -1;
    std::vector<LanguageProbability> probabilities;  // every language, in token order
};

// Softmax over logits[firstLanguage, firstLanguage + count) in float32 (other tokens masked).
std::vector<float> languageProbabilities(std::span<const float> logitsAfterSot, int firstLanguage, int count);

// Runs the decoder on [<|startoftranscript|>] over the session's current window. When
// logitsAfterSot is given it receives that logit row (it also yields the no-speech probability).
// `among` (language codes; empty: all) restricts the choice: the most probable of those is
// detected; the probabilities stay those over every language.
Result<LanguageDetection> detectLanguage(InferenceSession& session, const Tokenizer& tokenizer,
                                         std::vector<float>* logitsAfterSot = nullptr,
                                         const std::vector<std::string>& among = {});

// "en,de,French" (codes or names, comma-separated) as codes, in the order given; an unknown one is
// an error that names it.
Result<std::vector<std::string>> parseLanguageList(std::string_view list);

// `list` (as parseLanguageList reads it) as the languages detection chooses from; an error when
// the list is bad or the options already name a language (nothing to detect).
Result<void> setDetectAmong(DecodingOptions& options, std::string_view list);

// Empty when every code of `codes` is a language of the tokenizer, else which is not.
Result<void> checkLanguageCodes(const Tokenizer& tokenizer, const std::vector<std::string>& codes);

} // namespace hearsay
