// Special token ids by vocabulary size, and their "<|...|>" texts, in the order of OpenAI's
// whisper/tokenizer.py get_encoding().
#include "core/text/tokenizer.h"

#include <cstdio>

namespace hearsay {

std::string_view SpecialTokens::vocabularyName(int nVocab) {
    return nVocab == 51864 ? "English-only" : nVocab == 51865 ? "multilingual" : "large-v3";
}

SpecialTokens SpecialTokens::forVocabularySize(int nVocab) {
    // n_vocab = ordinary + 2 (eot, sot) + languages + 6 (translate … notimestamps) + 1501 timestamps:
    // 50256 + 2 + 99 + 6 + 1501 = 51864 (English-only: GPT-2's vocabulary lacks one token),
    // 50257 + 2 + 99 + 6 + 1501 = 51865 (multilingual), 50257 + 2 + 100 + 6 + 1501 = 51866 (large-v3).
    SpecialTokens s;
    s.languageCount = nVocab >= 51866 ? 100 : 99;
    s.eot = nVocab - kTimestampCount - 6 - s.languageCount - 2;
    s.sot = s.eot + 1;
    s.firstLanguage = s.sot + 1;
    s.translate = s.firstLanguage + s.languageCount;
    s.transcribe = s.translate + 1;
    s.startOfLm = s.transcribe + 1;
    s.startOfPrev = s.startOfLm + 1;
    s.noSpeech = s.startOfPrev + 1;
    s.noTimestamps = s.noSpeech + 1;
    s.timestampBegin = s.noTimestamps + 1;
    return s;
}

std::string SpecialTokens::text(int id) const {
    if (id == eot) return "<|endoftext|>";
    if (id == sot) return "<|startoftranscript|>";
    if (id >= firstLanguage && id < firstLanguage + languageCount) {
        const auto& languages = whisperLanguages();
        const size_t index = static_cast<size_t>(id - firstLanguage);
        return index < languages.size() ? "<|" + std::string(languages[index].code) + "|>" : std::string();
    }
    if (id == translate) return "<|translate|>";
    if (id == transcribe) return "<|transcribe|>";
    if (id == startOfLm) return "<|startoflm|>";
    if (id == startOfPrev) return "<|startofprev|>";
    if (id == noSpeech) return "<|nospeech|>";
    if (id == noTimestamps) return "<|notimestamps|>";
    if (id >= timestampBegin && id < timestampBegin + kTimestampCount) {
        const int centiseconds = (id - timestampBegin) * 2;
        char buf[32];
        std::snprintf(buf, sizeof buf, "<|%d.%02d|>", centiseconds / 100, centiseconds % 100);
        return buf;
    }
    return {};
}

} // namespace hearsay
