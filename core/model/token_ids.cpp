// Special-token positions and language codes (see token_ids.h).
#include "core/model/token_ids.h"

namespace hearsay {

ModelTokenIds ModelTokenIds::forConfig(const WhisperConfig& config) {
    ModelTokenIds t;
    t.languageCount = config.languageCount();
    t.ordinaryCount = config.nVocab - 1509 - t.languageCount;  // 1509 = 8 fixed specials + 1501 timestamps
    t.eot = t.ordinaryCount;
    t.sot = t.eot + 1;
    t.firstLanguage = t.sot + 1;
    t.translate = t.firstLanguage + t.languageCount;
    t.transcribe = t.translate + 1;
    t.startOfLm = t.translate + 2;
    t.startOfPrev = t.translate + 3;
    t.noSpeech = t.translate + 4;
    t.noTimestamps = t.translate + 5;
    t.timestampBegin = t.translate + 6;
    return t;
}

const std::vector<std::string_view>& whisperLanguageCodes() {
    static const std::vector<std::string_view> codes = {
        "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id",
        "hi", "fi", "vi", "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg",
        "lt", "la", "mi", "ml", "cy", "sk", "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br",
        "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw", "gl", "mr", "pa", "si", "km", "sn", "yo", "so",
        "af", "oc", "ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo", "ht", "ps", "tk", "nn", "mt",
        "sa", "lb", "my", "bo", "tl", "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue"};
    return codes;
}

} // namespace hearsay
