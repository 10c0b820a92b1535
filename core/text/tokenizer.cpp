// Tokenizer: GPT-2 pre-tokenisation + byte-level BPE over the ordinary tokens, the special
// tokens after them, and the Hugging Face vocabulary readers.
#include "core/text/tokenizer.h"

#include "core/text/byte_pair_encoder.h"
#include "core/text/byte_unicode.h"
#include "core/text/lossy_vocabulary.h"
#include "core/text/pretokenizer.h"
#include "core/text/token_table.h"
#include "core/text/utf8.h"
#include "core/text/vocabulary_directory.h"
#include "core/util/mapped_file.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace hearsay {

struct Tokenizer::Impl {
    explicit Impl(BytePairEncoder b) : bpe(std::move(b)) {}
    BytePairEncoder bpe;  // ids 0 .. eot-1
    int restored = 0;     // see restoredTokenCount()
    int lost = 0;         // see lostTokenCount()
    std::vector<int> nonSpeech;  // see nonSpeechTokens(); computed once at construction
};

namespace {

// What both forms of fromVocabulary check: a size that fits nVocab, special tokens (if any) from
// eot on, and no ordinary token over kMaxTokenBytes. `at(id)` gives token id's bytes.
template <class At>
Result<void> checkVocabulary(size_t count, const At& at, const SpecialTokens& special, int nVocab) {
    if (count < static_cast<size_t>(special.eot) || count > static_cast<size_t>(nVocab)) {
        return makeError("the vocabulary has " + std::to_string(count) + " tokens; a " + std::string(SpecialTokens::vocabularyName(nVocab)) +
                         " model (n_vocab " + std::to_string(nVocab) + ") has " + std::to_string(special.eot) +
                         " ordinary tokens before its special tokens");
    }
    // Some files list special tokens after the ordinary ones (English ggml: <|endoftext|>); they
    // are dropped, but an ordinary token there means the vocabulary is for another model.
    for (size_t id = static_cast<size_t>(special.eot); id < count; ++id) {
        const std::string_view t = at(id);
        if (t.size() < 4 || !t.starts_with("<|") || !t.ends_with("|>")) {
            return makeError("token " + std::to_string(id) + " is not a special token (\"" + replaceInvalidUtf8(t) +
                             "\"), but a " + std::string(SpecialTokens::vocabularyName(nVocab)) + " model (n_vocab " + std::to_string(nVocab) +
                             ") has " + std::to_string(special.eot) + " ordinary tokens");
        }
    }
    for (size_t id = 0; id < static_cast<size_t>(special.eot); ++id) {
        if (at(id).size() > kMaxTokenBytes) return makeError(tooLongTokenMessage(id, at(id).size()));
    }
    return {};
}

Result<SpecialTokens> specialTokensFor(int nVocab) {
    if (nVocab < 51864 || nVocab > 51866) {
        return makeError("vocabulary size " + std::to_string(nVocab) +
                         " is not a Whisper vocabulary (51864 English-only, 51865 multilingual, 51866 large-v3)");
    }
    return SpecialTokens::forVocabularySize(nVocab);
}

} // namespace

Result<Tokenizer> Tokenizer::fromVocabulary(std::vector<std::string> tokens, int nVocab) {
    Result<SpecialTokens> special = specialTokensFor(nVocab);
    if (!special) return special.error();
    Result<void> checked = checkVocabulary(tokens.size(), [&](size_t id) { return std::string_view(tokens[id]); }, special.value(), nVocab);
    if (!checked) return checked.error();
    tokens.resize(static_cast<size_t>(special->eot));
    Result<LossyVocabularyReport> lossy = repairLossyVocabulary(tokens);
    if (!lossy) return makeError("invalid vocabulary: " + lossy.message());
    auto table = std::make_shared<const TokenTable>(tokens);
    tokens = {};
    return make(std::move(table), special.value(), nVocab, lossy.value());
}

Result<Tokenizer> Tokenizer::fromVocabulary(std::shared_ptr<const TokenTable> tokens, int nVocab) {
    if (!tokens) return makeError("no vocabulary");
    Result<SpecialTokens> special = specialTokensFor(nVocab);
    if (!special) return special.error();
    const TokenTable& table = *tokens;
    Result<void> checked = checkVocabulary(table.size(), [&](size_t id) { return table[id]; }, special.value(), nVocab);
    if (!checked) return checked.error();
    // A vocabulary that went through a lossy decoder (lossy_vocabulary.h) is repaired in a copy:
    // its single bytes read U+FFFD, or its tokens collide, which the encoder refuses. Any table the
    // encoder refuses goes through that path, which answers as it does for strings (a repaired
    // vocabulary, or the error).
    bool lossy = false;
    for (size_t id = 0; id < std::min<size_t>(256, table.size()); ++id) lossy = lossy || table[id] == kReplacementCharacter;
    if (!lossy) {
        Result<Tokenizer> shared = make(tokens, special.value(), nVocab, LossyVocabularyReport{});
        if (shared) return shared;
    }
    return fromVocabulary(table.strings(), nVocab);
}

Result<Tokenizer> Tokenizer::make(std::shared_ptr<const TokenTable> tokens, const SpecialTokens& special, int nVocab,
                                  const LossyVocabularyReport& lossy) {
    Result<BytePairEncoder> bpe = BytePairEncoder::create(std::move(tokens), static_cast<size_t>(special.eot), lossy.unusable);
    if (!bpe) return makeError("invalid vocabulary: " + bpe.message());

    auto impl = std::make_shared<Impl>(std::move(bpe).value());
    impl->restored = lossy.restoredBytes;
    impl->lost = static_cast<int>(lossy.unusable.size());
    Tokenizer t;
    t.m_impl = impl;
    t.m_special = special;
    t.m_nVocab = nVocab;
    impl->nonSpeech = t.computeNonSpeechTokens();  // needs encode(), hence after the rest
    return t;
}

Result<Tokenizer> Tokenizer::fromHuggingFaceDirectory(const std::string& directory, int nVocab) {
    auto tokens = readDirectoryVocabulary(directory, nVocab);
    if (!tokens) return tokens.error();
    if (!tokens.value()) return makeError("no vocab.json or tokenizer.json in " + directory);
    Result<Tokenizer> t = fromVocabulary(std::move(tokens.value()->tokens), nVocab);
    if (!t) return makeError(directory + ": " + t.message());
    return t;
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
    std::vector<int> ids;
    if (!m_impl) return ids;
    ids.reserve(text.size() / 3 + 1);
    forEachGpt2Piece(text, [&](std::string_view piece) { m_impl->bpe.encodePiece(piece, ids); });
    return ids;
}

std::string Tokenizer::tokenBytes(int id) const {
    if (!m_impl || id < 0 || id >= m_nVocab) return {};
    if (id < m_special.eot) return std::string(m_impl->bpe.token(id));
    return m_special.text(id);
}

std::string Tokenizer::tokenText(int id) const {
    if (id >= m_special.eot) return tokenBytes(id);
    return replaceInvalidUtf8(tokenBytes(id));
}

std::string Tokenizer::decodeBytes(const std::vector<int>& ids) const {
    std::string out;
    for (int id : ids) {
        if (m_impl && id >= 0 && id < m_special.eot) out += m_impl->bpe.token(id);
        else out += tokenBytes(id);
    }
    return out;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const { return replaceInvalidUtf8(decodeBytes(ids)); }

int Tokenizer::restoredTokenCount() const { return m_impl ? m_impl->restored : 0; }
int Tokenizer::lostTokenCount() const { return m_impl ? m_impl->lost : 0; }

int Tokenizer::languageToken(std::string_view codeOrName) const {
    const std::optional<int> index = languageIndex(codeOrName);
    if (!index || *index >= m_special.languageCount) return -1;
    return m_special.firstLanguage + *index;
}

std::string_view Tokenizer::languageCode(int tokenId) const {
    const int index = tokenId - m_special.firstLanguage;
    if (index < 0 || index >= m_special.languageCount) return {};
    return whisperLanguages()[static_cast<size_t>(index)].code;
}

const std::vector<int>& Tokenizer::nonSpeechTokens() const {
    static const std::vector<int> none;
    return m_impl ? m_impl->nonSpeech : none;
}

std::vector<int> Tokenizer::computeNonSpeechTokens() const {
    // OpenAI's Tokenizer.non_speech_tokens: speaker tags and annotations such as "♪♪♪",
    // "( SPEAKING FOREIGN LANGUAGE )", "[DAVID]", while keeping ordinary punctuation.
    std::vector<std::string> symbols;
    for (const char* s : {"\"", "#", "(", ")", "*", "+", "/", ":", ";", "<", "=", ">", "@", "[", "\\", "]", "^",
                          "_", "`", "{", "|", "}", "~", "「", "」", "『", "』", "<<", ">>", "<<<", ">>>", "--",
                          "---", "-(", "-[", "('", "(\"", "((", "))", "(((", ")))", "[[", "]]", "{{", "}}", "♪♪",
                          "♪♪♪"}) {
        symbols.emplace_back(s);
    }
    // U+2640..U+267F symbols share their first two UTF-8 bytes; when one is several tokens,
    // suppressing the first token is safe.
    const std::vector<std::string> miscellaneous = {"♩", "♪", "♫", "♬", "♭", "♮", "♯"};

    std::set<int> result;
    // Hyphens and single quotes stay allowed between words, not at the start of one.
    for (const char* s : {" -", " '"}) {
        const std::vector<int> ids = encode(s);
        if (!ids.empty()) result.insert(ids.front());
    }
    const auto add = [&](const std::string& symbol, bool firstTokenEnough) {
        for (const std::string& text : {symbol, " " + symbol}) {
            const std::vector<int> ids = encode(text);
            if (ids.size() == 1 || (firstTokenEnough && !ids.empty())) result.insert(ids.front());
        }
    };
    for (const std::string& s : symbols) add(s, false);
    for (const std::string& s : miscellaneous) add(s, true);
    return {result.begin(), result.end()};
}

std::string Utf8StreamDecoder::push(int id) {
    m_pending += m_tokenizer->tokenBytes(id);
    const size_t complete = completeUtf8Prefix(m_pending);
    std::string out = replaceInvalidUtf8(std::string_view(m_pending).substr(0, complete));
    m_pending.erase(0, complete);
    return out;
}

std::string Utf8StreamDecoder::flush() {
    std::string out = replaceInvalidUtf8(m_pending);
    m_pending.clear();
    return out;
}

} // namespace hearsay
