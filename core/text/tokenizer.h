// Whisper's byte-level BPE tokenizer (tiktoken's algorithm: ranks equal token ids), with
// every special token, the language table, and UTF-8-safe incremental decoding.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

class TokenTable;
struct LossyVocabularyReport;

// Ids of the special tokens; they follow the ordinary vocabulary in a fixed order:
// <|endoftext|> <|startoftranscript|> <|xx|>×languages <|translate|> <|transcribe|>
// <|startoflm|> <|startofprev|> <|nospeech|> <|notimestamps|> <|0.00|> … <|30.00|>.
struct SpecialTokens {
    int eot = 50257;
    int sot = 50258;
    int firstLanguage = 50259;
    int languageCount = 99;
    int translate = 50358;
    int transcribe = 50359;
    int startOfLm = 50360;
    int startOfPrev = 50361;
    int noSpeech = 50362;
    int noTimestamps = 50363;
    int timestampBegin = 50364;  // <|0.00|>; timestamps step 0.02 s up to <|30.00|>
    static constexpr int kTimestampCount = 1501;  // <|0.00|> … <|30.00|>

    // From the vocabulary size: 51864 English-only, 51865 multilingual, 51866 large-v3.
    static SpecialTokens forVocabularySize(int nVocab);
    // "English-only", "multilingual" or "large-v3": the kind of vocabulary of that size.
    static std::string_view vocabularyName(int nVocab);
    bool isTimestamp(int id) const { return id >= timestampBegin; }
    bool isSpecial(int id) const { return id >= eot; }
    int vocabularySize() const { return timestampBegin + kTimestampCount; }
    // "<|endoftext|>", "<|en|>", "<|0.42|>", …; empty when id is not one of these tokens.
    std::string text(int id) const;
};

struct Language {
    std::string_view code;  // "en"
    std::string_view name;  // "english"
};
// Whisper's languages in token order (100 entries; the first 99 for pre-v3 models).
const std::vector<Language>& whisperLanguages();
std::optional<int> languageIndex(std::string_view codeOrName);  // accepts "en" or "english"

class Tokenizer {
public:
    // From byte strings indexed by id and the model's vocab size.
    static Result<Tokenizer> fromVocabulary(std::vector<std::string> tokens, int nVocab);
    // The same from a model's table (WhisperModel::sharedVocabulary), which the tokenizer keeps
    // rather than copies, unless it needs repair (a lossy vocabulary: see restoredTokenCount).
    static Result<Tokenizer> fromVocabulary(std::shared_ptr<const TokenTable> tokens, int nVocab);
    // From Hugging Face tokenizer files in a checkpoint directory (vocab.json, or tokenizer.json).
    static Result<Tokenizer> fromHuggingFaceDirectory(const std::string& directory, int nVocab);

    std::vector<int> encode(std::string_view text) const;  // ordinary text only, no specials
    // Specials rendered as "<|...|>", invalid UTF-8 replaced by U+FFFD as Python's errors="replace"
    // does; ids outside 0..vocabularySize()-1 contribute nothing.
    std::string decode(const std::vector<int>& ids) const;
    std::string decodeBytes(const std::vector<int>& ids) const;  // the same, raw bytes, nothing replaced
    std::string tokenBytes(int id) const;                  // raw bytes (or "<|...|>" text) of one token
    std::string tokenText(int id) const;                   // human-readable, specials included

    const SpecialTokens& special() const { return m_special; }
    int vocabularySize() const { return m_nVocab; }
    bool isMultilingual() const { return m_nVocab >= 51865; }
    int languageToken(std::string_view codeOrName) const;  // -1 when unknown for this model
    std::string_view languageCode(int tokenId) const;      // "" when not a language token
    // Tokens the reference suppresses as non-speech symbols (suppress_tokens = "-1"); computed once
    // when the tokenizer is built, since every decoded window asks for them.
    const std::vector<int>& nonSpeechTokens() const;
    // For a vocabulary whose file stored tokens that are not valid UTF-8 as U+FFFD (whisper.cpp's
    // test models; see lossy_vocabulary.h): single bytes restored, and ids whose bytes are lost,
    // which encode() cannot produce (so its ids may differ from the reference's). 0 when complete.
    int restoredTokenCount() const;
    int lostTokenCount() const;

    struct Impl;
private:
    static Result<Tokenizer> make(std::shared_ptr<const TokenTable> tokens, const SpecialTokens& special, int nVocab,
                                  const LossyVocabularyReport& lossy);
    std::vector<int> computeNonSpeechTokens() const;

    std::shared_ptr<const Impl> m_impl;
    SpecialTokens m_special;
    int m_nVocab = 0;
};

// Incremental decoder for streaming display: feed token ids one at a time and receive only
// complete UTF-8 characters; a multibyte character split across tokens is held back.
class Utf8StreamDecoder {
public:
    explicit Utf8StreamDecoder(const Tokenizer& tokenizer) : m_tokenizer(&tokenizer) {}
    std::string push(int id);   // text that became complete with this token
    std::string flush();        // what remains, incomplete bytes replaced by U+FFFD
private:
    const Tokenizer* m_tokenizer;
    std::string m_pending;
};

} // namespace hearsay
