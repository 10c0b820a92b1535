// The token vocabulary stored beside a model's weights, in whichever file the model's format
// keeps it: CTranslate2's vocabulary.json (a JSON array) or vocabulary.txt (a token per line),
// and Hugging Face's vocab.json or tokenizer.json (model.vocab, an object of token -> id). All
// hold GPT-2 byte-level text; this returns the ordinary tokens' bytes by id.
#pragma once

#include "core/util/json_text.h"
#include "core/util/result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {

struct DirectoryVocabulary {
    std::vector<std::string> tokens;  // ordinary tokens' bytes, ids 0 .. eot-1
    std::filesystem::path file;       // the file they came from
};

// Reads the first of vocabulary.json, vocabulary.txt, vocab.json, tokenizer.json present in
// `directory` for a model of vocabulary size nVocab (51864, 51865 or 51866). Nothing when none
// of them is there; an error naming the file when the one found is malformed, lacks an ordinary
// id, or (for the list files) places anything but the special tokens after the ordinary ones.
Result<std::optional<DirectoryVocabulary>> readDirectoryVocabulary(const std::filesystem::path& directory, int nVocab);

// A whole JSON file; the error names the file.
Result<nlohmann::json> readJsonFile(const std::filesystem::path& path);

} // namespace hearsay
