// Language identification from the first decoder step (the reference's detect_language).
#include "core/decoding/language_detection.h"

#include "core/decoding/log_softmax.h"
#include "core/nn/inference_session.h"

#include <algorithm>
#include <cmath>

namespace hearsay {

std::vector<float> languageProbabilities(std::span<const float> logitsAfterSot, int firstLanguage, int count) {
    std::vector<float> probabilities;
    if (firstLanguage < 0 || count <= 0 || size_t(firstLanguage + count) > logitsAfterSot.size()) return probabilities;
    auto languages = logitsAfterSot.subspan(size_t(firstLanguage), size_t(count));
    probabilities.resize(size_t(count));
    logSoftmax(languages, probabilities);
    for (float& p : probabilities) p = std::exp(p);
    return probabilities;
}

Result<LanguageDetection> detectLanguage(InferenceSession& session, const Tokenizer& tokenizer,
                                         std::vector<float>* logitsAfterSot) {
    if (!tokenizer.isMultilingual())
        return makeError("this model is English-only: it has no language tokens to detect a language with");
    const SpecialTokens& special = tokenizer.special();
    std::vector<float> logits;
    if (auto r = session.decode({{special.sot}}, logits); !r) return r.error();

    const int nVocab = tokenizer.vocabularySize();
    if (int(logits.size()) < nVocab) return makeError("the decoder returned fewer logits than the vocabulary size");
    std::span<const float> row(logits.data(), size_t(nVocab));
    std::vector<float> probabilities = languageProbabilities(row, special.firstLanguage, special.languageCount);
    if (probabilities.empty()) return makeError("the model's vocabulary has no language tokens");

    LanguageDetection detection;
    int best = 0;
    for (int i = 0; i < int(probabilities.size()); ++i) {
        const int token = special.firstLanguage + i;
        detection.probabilities.push_back({std::string(tokenizer.languageCode(token)), token, probabilities[size_t(i)]});
        // argmax over the masked logits (first maximum); ties between probabilities follow the logits
        if (row[size_t(token)] > row[size_t(special.firstLanguage + best)]) best = i;
    }
    detection.token = special.firstLanguage + best;
    detection.code = detection.probabilities[size_t(best)].code;
    if (logitsAfterSot) logitsAfterSot->assign(row.begin(), row.end());
    return detection;
}

} // namespace hearsay
