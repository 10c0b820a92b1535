// Spoken-language detection for multilingual models: the decoder's logits after
// <|startoftranscript|> alone, every non-language token masked, softmax over the languages.
#pragma once

#include "core/text/tokenizer.h"
#include "core/util/result.h"

#include <span>
#include <string>
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
Result<LanguageDetection> detectLanguage(InferenceSession& session, const Tokenizer& tokenizer,
                                         std::vector<float>* logitsAfterSot = nullptr);

} // namespace hearsay
