// Whisper's language table in token order (OpenAI's whisper/tokenizer.py LANGUAGES), and the
// lookup by code, name or one of the reference's aliases ("mandarin", "castilian", ...).
#include "core/text/tokenizer.h"

#include <array>
#include <cctype>

namespace hearsay {
namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    }
    return true;
}

// TO_LANGUAGE_CODE's extra names.
constexpr std::array<Language, 12> kAliases = {{
    {"my", "burmese"}, {"ca", "valencian"}, {"nl", "flemish"}, {"ht", "haitian"},
    {"lb", "letzeburgesch"}, {"ps", "pushto"}, {"pa", "panjabi"}, {"ro", "moldavian"},
    {"ro", "moldovan"}, {"si", "sinhalese"}, {"es", "castilian"}, {"zh", "mandarin"},
}};

} // namespace

const std::vector<Language>& whisperLanguages() {
    static const std::vector<Language> languages = {
        {"en", "english"}, {"zh", "chinese"}, {"de", "german"}, {"es", "spanish"},
        {"ru", "russian"}, {"ko", "korean"}, {"fr", "french"}, {"ja", "japanese"},
        {"pt", "portuguese"}, {"tr", "turkish"}, {"pl", "polish"}, {"ca", "catalan"},
        {"nl", "dutch"}, {"ar", "arabic"}, {"sv", "swedish"}, {"it", "italian"},
        {"id", "indonesian"}, {"hi", "hindi"}, {"fi", "finnish"}, {"vi", "vietnamese"},
        {"he", "hebrew"}, {"uk", "ukrainian"}, {"el", "greek"}, {"ms", "malay"},
        {"cs", "czech"}, {"ro", "romanian"}, {"da", "danish"}, {"hu", "hungarian"},
        {"ta", "tamil"}, {"no", "norwegian"}, {"th", "thai"}, {"ur", "urdu"},
        {"hr", "croatian"}, {"bg", "bulgarian"}, {"lt", "lithuanian"}, {"la", "latin"},
        {"mi", "maori"}, {"ml", "malayalam"}, {"cy", "welsh"}, {"sk", "slovak"},
        {"te", "telugu"}, {"fa", "persian"}, {"lv", "latvian"}, {"bn", "bengali"},
        {"sr", "serbian"}, {"az", "azerbaijani"}, {"sl", "slovenian"}, {"kn", "kannada"},
        {"et", "estonian"}, {"mk", "macedonian"}, {"br", "breton"}, {"eu", "basque"},
        {"is", "icelandic"}, {"hy", "armenian"}, {"ne", "nepali"}, {"mn", "mongolian"},
        {"bs", "bosnian"}, {"kk", "kazakh"}, {"sq", "albanian"}, {"sw", "swahili"},
        {"gl", "galician"}, {"mr", "marathi"}, {"pa", "punjabi"}, {"si", "sinhala"},
        {"km", "khmer"}, {"sn", "shona"}, {"yo", "yoruba"}, {"so", "somali"},
        {"af", "afrikaans"}, {"oc", "occitan"}, {"ka", "georgian"}, {"be", "belarusian"},
        {"tg", "tajik"}, {"sd", "sindhi"}, {"gu", "gujarati"}, {"am", "amharic"},
        {"yi", "yiddish"}, {"lo", "lao"}, {"uz", "uzbek"}, {"fo", "faroese"},
        {"ht", "haitian creole"}, {"ps", "pashto"}, {"tk", "turkmen"}, {"nn", "nynorsk"},
        {"mt", "maltese"}, {"sa", "sanskrit"}, {"lb", "luxembourgish"}, {"my", "myanmar"},
        {"bo", "tibetan"}, {"tl", "tagalog"}, {"mg", "malagasy"}, {"as", "assamese"},
        {"tt", "tatar"}, {"haw", "hawaiian"}, {"ln", "lingala"}, {"ha", "hausa"},
        {"ba", "bashkir"}, {"jw", "javanese"}, {"su", "sundanese"}, {"yue", "cantonese"},
    };
    return languages;
}

std::optional<int> languageIndex(std::string_view codeOrName) {
    const std::vector<Language>& languages = whisperLanguages();
    for (size_t i = 0; i < languages.size(); ++i) {
        if (equalsIgnoringCase(codeOrName, languages[i].code) || equalsIgnoringCase(codeOrName, languages[i].name)) {
            return static_cast<int>(i);
        }
    }
    for (const Language& alias : kAliases) {
        if (equalsIgnoringCase(codeOrName, alias.name)) return languageIndex(alias.code);
    }
    return std::nullopt;
}

} // namespace hearsay
