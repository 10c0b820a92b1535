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

Result<std::vector<std::string>> parseLanguageList(std::string_view list) {
    std::vector<std::string> codes;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string_view::npos) end = list.size();
        std::string item(list.substr(start, end - start));
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (!item.empty()) {
            const auto index = languageIndex(item);
            if (!index) return makeError("unknown language '" + item + "'");
            const std::string code(whisperLanguages()[size_t(*index)].code);
            if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
        }
        start = end + 1;
    }
    if (codes.empty()) return makeError("no language in the list '" + std::string(list) + "'");
    return codes;
}

Result<void> setDetectAmong(DecodingOptions& options, std::string_view list) {
    auto codes = parseLanguageList(list);
    if (!codes) return codes.error();
    if (!options.language.empty()) return makeError("a language list is for detection: leave the language at auto");
    options.detectAmong = std::move(codes).value();
    return {};
}

Result<void> checkLanguageCodes(const Tokenizer& tokenizer, const std::vector<std::string>& codes) {
    for (const std::string& code : codes)
        if (tokenizer.languageToken(code) < 0) return makeError("unknown language '" + code + "' for this model");
    return {};
}

Result<LanguageDetection> detectLanguage(InferenceSession& session, const Tokenizer& tokenizer,
                                         std::vector<float>* logitsAfterSot, const std::vector<std::string>& among) {
    if (!tokenizer.isMultilingual())
        return makeError("this model is English-only: it has no language tokens to detect a language with");
    if (auto ok = checkLanguageCodes(tokenizer, among); !ok) return ok.error();
    const SpecialTokens& special = tokenizer.special();
    std::vector<float> logits;
    if (auto r = session.decode({{special.sot}}, logits); !r) return r.error();

    const int nVocab = tokenizer.vocabularySize();
    if (int(logits.size()) < nVocab) return makeError("the decoder returned fewer logits than the vocabulary size");
    std::span<const float> row(logits.data(), size_t(nVocab));
    std::vector<float> probabilities = languageProbabilities(row, special.firstLanguage, special.languageCount);
    if (probabilities.empty()) return makeError("the model's vocabulary has no language tokens");

    LanguageDetection detection;
    int best = -1;
    for (int i = 0; i < int(probabilities.size()); ++i) {
        const int token = special.firstLanguage + i;
        const std::string code(tokenizer.languageCode(token));
        detection.probabilities.push_back({code, token, probabilities[size_t(i)]});
        if (!among.empty() && std::find(among.begin(), among.end(), code) == among.end()) continue;
        // argmax over the masked logits (first maximum); ties between probabilities follow the logits
        if (best < 0 || row[size_t(token)] > row[size_t(special.firstLanguage + best)]) best = i;
    }
    if (best < 0) return makeError("none of the languages to choose from is the model's");
    detection.token = special.firstLanguage + best;
    detection.code = detection.probabilities[size_t(best)].code;
    if (logitsAfterSot) logitsAfterSot->assign(row.begin(), row.end());
    return detection;
}

} // namespace hearsay
