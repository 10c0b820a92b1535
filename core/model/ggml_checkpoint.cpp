// whisper.cpp ggml .bin model files: tensors bound in place from the memory map.
#include "core/model/ggml_file.h"
#include "core/model/model_loading.h"
#include "core/text/tokenizer.h"
#include "core/model/vocabulary_repair.h"

namespace hearsay {

Result<WhisperModel::Parts> loadGgmlFile(const std::filesystem::path& file, const LoadOptions& options) {
    auto ggml = openGgml(file);
    if (!ggml) return ggml.error();
    GgmlFile& g = ggml.value();
    if (g.tensors.empty()) {
        return makeError(file.string() + " contains no tensors: it holds only the hyper-parameters, mel filters and "
                         "vocabulary (a whisper.cpp vocabulary/test file, not a model)");
    }
    WhisperModel::Parts parts;
    parts.format = ModelFormat::Ggml;
    parts.path = file;
    parts.config = g.config;
    parts.files.push_back(g.file);
    std::map<std::string, FoundTensor> tensors;
    for (auto& t : g.tensors) tensors[t.name] = FoundTensor{t, file.string()};
    if (auto ok = bindWeights(std::move(tensors), true, options, parts); !ok) return ok.error();

    const int ordinary = SpecialTokens::forVocabularySize(g.config.nVocab).eot;
    if (int(g.vocabulary.size()) < ordinary) {
        return makeError(file.string() + ": vocabulary holds " + std::to_string(g.vocabulary.size()) + " tokens, expected at least " +
                         std::to_string(ordinary) + " ordinary tokens for n_vocab " + std::to_string(g.config.nVocab));
    }
    g.vocabulary.resize(size_t(ordinary));
    repairWhisperCppVocabulary(g.vocabulary, g.config.isMultilingual());
    parts.vocabulary = std::move(g.vocabulary);
    parts.melFilters = std::move(g.melFilters);
    parts.generation = derivedGenerationSettings(g.config);
    return parts;
}

} // namespace hearsay
