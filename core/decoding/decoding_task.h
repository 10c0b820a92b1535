// Decodes one 30-second window whose encoder output the session already holds: start sequence,
// optional language detection, the no-speech probability, the sampling loop with the logit
// filters and a token decoder, and the final ranking (the reference's DecodingTask.run).
#pragma once

#include "core/decoding/decoding_options.h"
#include "core/decoding/language_detection.h"
#include "core/text/tokenizer.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace hearsay {

class InferenceSession;

struct DecodingResult {
    std::string language;                       // code of the language decoded with ("en")
    std::vector<LanguageProbability> languageProbabilities;  // filled when the language was detected
    std::vector<int> tokens;                    // sampled tokens, timestamps included, EOT excluded
    std::string text;                           // text tokens decoded, surrounding whitespace removed
    double sumLogprob = 0.0;
    double avgLogprob = 0.0;                    // sumLogprob / (tokens + 1)
    double noSpeechProb = 0.0;                  // P(<|nospeech|>) at the <|startoftranscript|> position
    double compressionRatio = 0.0;
    float temperature = 0.0f;
    bool endedByLimit = false;                  // stopped by sample length or n_text_ctx, not by EOT
    int steps = 0;                              // decoder steps run
};

Result<DecodingResult> decodeWindow(InferenceSession& session, const Tokenizer& tokenizer,
                                    const DecodingOptions& options);

} // namespace hearsay
