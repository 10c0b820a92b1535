// Vocabulary files beside a model's weights (see vocabulary_directory.h).
#include "core/text/vocabulary_directory.h"

#include "core/text/byte_unicode.h"
#include "core/text/token_table.h"
#include "core/text/tokenizer.h"
#include "core/util/mapped_file.h"

#include <algorithm>

namespace fs = std::filesystem;

namespace hearsay {
namespace {

std::string missingIdMessage(const std::string& file, size_t id, int nVocab, int eot) {
    return file + ": no token has id " + std::to_string(id) + "; the ordinary token ids of a " + std::string(SpecialTokens::vocabularyName(nVocab)) +
           " vocabulary are 0.." + std::to_string(eot - 1);
}

Result<std::string> tokenBytes(const std::string& text, size_t id, const std::string& file) {
    std::optional<std::string> bytes = vocabTextToBytes(text);
    if (!bytes) {
        return makeError(file + ": token " + std::to_string(id) + " (\"" + text + "\") is not in GPT-2's byte-to-unicode alphabet");
    }
    if (bytes->size() > kMaxTokenBytes) return makeError(file + ": " + tooLongTokenMessage(id, bytes->size()));
    return std::move(*bytes);
}

// vocab.json / tokenizer.json's model.vocab: an object of byte-level text -> id.
Result<std::vector<std::string>> tokensFromObject(const nlohmann::json& vocab, int nVocab, const std::string& file) {
    const int eot = SpecialTokens::forVocabularySize(nVocab).eot;
    if (!vocab.is_object()) return makeError(file + ": the vocabulary is not a JSON object of token -> id");
    std::vector<std::string> tokens(static_cast<size_t>(eot));
    std::vector<bool> seen(static_cast<size_t>(eot), false);
    for (const auto& [text, idJson] : vocab.items()) {
        if (!idJson.is_number_integer()) return makeError(file + ": the id of token \"" + text + "\" is not an integer");
        const int64_t id = idJson.get<int64_t>();
        if (id < 0 || id >= nVocab) {
            return makeError(file + ": token \"" + text + "\" has id " + std::to_string(id) + ", outside 0.." +
                             std::to_string(nVocab - 1));
        }
        if (id >= eot) continue;  // special tokens: their ids and texts are fixed by the layout
        if (seen[size_t(id)]) return makeError(file + ": two tokens have id " + std::to_string(id));
        auto bytes = tokenBytes(text, size_t(id), file);
        if (!bytes) return bytes.error();
        tokens[size_t(id)] = std::move(bytes).value();
        seen[size_t(id)] = true;
    }
    const auto missing = std::find(seen.begin(), seen.end(), false);
    if (missing != seen.end()) return makeError(missingIdMessage(file, size_t(missing - seen.begin()), nVocab, eot));
    return tokens;
}

// vocabulary.txt / vocabulary.json: the token texts in id order, specials and timestamps after
// the ordinary tokens (CTranslate2's converter writes every id up to n_vocab).
Result<std::vector<std::string>> tokensFromList(const std::vector<std::string>& texts, int nVocab, const std::string& file) {
    const SpecialTokens special = SpecialTokens::forVocabularySize(nVocab);
    if (texts.size() < size_t(special.eot)) return makeError(missingIdMessage(file, texts.size(), nVocab, special.eot));
    if (texts.size() > size_t(nVocab)) {
        return makeError(file + ": lists " + std::to_string(texts.size()) + " tokens, more than the model's " +
                         std::to_string(nVocab));
    }
    // After the ordinary tokens come the special ones; their names vary between tokenizer
    // versions (<|iw|> or <|he|>, <|nocaptions|> or <|nospeech|>), their places do not.
    for (size_t id = size_t(special.eot); id < texts.size(); ++id) {
        const std::string& t = texts[id];
        const bool isSpecial = t.size() >= 4 && t.compare(0, 2, "<|") == 0 && t.compare(t.size() - 2, 2, "|>") == 0;
        if (!isSpecial || (id == size_t(special.eot) && t != "<|endoftext|>")) {
            return makeError(file + ": token " + std::to_string(id) + " is \"" + t + "\", but a " + std::string(SpecialTokens::vocabularyName(nVocab)) +
                             " vocabulary has " + (id == size_t(special.eot) ? "<|endoftext|>" : "a special token") +
                             " there (a vocabulary for another model?)");
        }
    }
    std::vector<std::string> tokens;
    tokens.reserve(size_t(special.eot));
    for (size_t id = 0; id < size_t(special.eot); ++id) {
        auto bytes = tokenBytes(texts[id], id, file);
        if (!bytes) return bytes.error();
        tokens.push_back(std::move(bytes).value());
    }
    return tokens;
}

Result<std::vector<std::string>> readVocabularyTxt(const fs::path& path, int nVocab) {
    auto text = readTextFile(path);
    if (!text) return text.error();
    std::vector<std::string> lines;
    const std::string& s = text.value();
    size_t start = 0;
    while (start < s.size()) {
        size_t end = s.find('\n', start);
        if (end == std::string::npos) end = s.size();
        lines.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return tokensFromList(lines, nVocab, path.string());
}

Result<std::vector<std::string>> readVocabularyJson(const fs::path& path, int nVocab) {
    auto json = readJsonFile(path);
    if (!json) return json.error();
    if (!json->is_array()) return makeError(path.string() + ": expected a JSON array of tokens");
    std::vector<std::string> texts;
    for (const nlohmann::json& t : json.value()) {
        if (!t.is_string()) return makeError(path.string() + ": token " + std::to_string(texts.size()) + " is not a string");
        texts.push_back(t.get<std::string>());
    }
    return tokensFromList(texts, nVocab, path.string());
}

Result<std::vector<std::string>> readVocabJson(const fs::path& path, int nVocab) {
    auto json = readJsonFile(path);
    if (!json) return json.error();
    return tokensFromObject(json.value(), nVocab, path.string());
}

Result<std::vector<std::string>> readTokenizerJson(const fs::path& path, int nVocab) {
    auto json = readJsonFile(path);
    if (!json) return json.error();
    const auto model = json->find("model");
    if (model == json->end() || !model->is_object()) return makeError(path.string() + ": no \"model\" object");
    const nlohmann::json type = model->value("type", nlohmann::json("BPE"));
    if (type != "BPE") return makeError(path.string() + ": the model type is " + type.dump() + ", expected \"BPE\"");
    if (!model->contains("vocab")) return makeError(path.string() + ": no \"model.vocab\"");
    return tokensFromObject((*model)["vocab"], nVocab, path.string());
}

} // namespace

Result<nlohmann::json> readJsonFile(const fs::path& path) {
    Result<std::string> text = readTextFile(path);
    if (!text) return text.error();
    Result<nlohmann::json> json = parseJson(text.value());
    if (!json) return makeError(path.string() + ": malformed JSON: " + json.message());
    return json;
}

Result<std::optional<DirectoryVocabulary>> readDirectoryVocabulary(const fs::path& directory, int nVocab) {
    if (nVocab < 51864 || nVocab > 51866) {
        return makeError("vocabulary size " + std::to_string(nVocab) +
                         " is not a Whisper vocabulary (51864 English-only, 51865 multilingual, 51866 large-v3)");
    }
    using Reader = Result<std::vector<std::string>> (*)(const fs::path&, int);
    const std::pair<const char*, Reader> files[] = {{"vocabulary.json", readVocabularyJson},
                                                    {"vocabulary.txt", readVocabularyTxt},
                                                    {"vocab.json", readVocabJson},
                                                    {"tokenizer.json", readTokenizerJson}};
    for (const auto& [name, read] : files) {
        const fs::path path = directory / name;
        std::error_code ec;
        if (!fs::exists(path, ec)) continue;
        auto tokens = read(path, nVocab);
        if (!tokens) return tokens.error();
        return std::optional<DirectoryVocabulary>(DirectoryVocabulary{std::move(tokens).value(), path});
    }
    return std::optional<DirectoryVocabulary>();
}

} // namespace hearsay
