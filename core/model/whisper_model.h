// A loaded Whisper model: immutable config, weights, vocabulary and generation settings,
// loaded once and shared read-only by every transcription session.
#pragma once

#include "core/model/whisper_config.h"
#include "core/model/whisper_weights.h"
#include "core/text/token_table.h"
#include "core/util/mapped_file.h"
#include "core/util/result.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {

enum class ModelFormat { HuggingFace, Ggml, CTranslate2 };

// "Hugging Face checkpoint", "whisper.cpp ggml file", "CTranslate2 model".
const char* modelFormatName(ModelFormat format);

// Settings a checkpoint may carry in generation_config.json (HF). For ggml files, or when
// absent, they are derived from the vocabulary as the reference implementation does.
struct GenerationSettings {
    std::vector<int> suppressTokens;         // suppressed at every step
    std::vector<int> beginSuppressTokens;    // suppressed at the first sampled step
    std::vector<std::pair<int, int>> alignmentHeads;  // (layer, head) for word timestamps
    std::map<std::string, int> languageTokens;        // "<|en|>" -> id, when given
    std::optional<int> noTimestampsTokenId;
    int maxInitialTimestampIndex = 50;       // first timestamp at most 1.00 s
    // True when read from generation_config.json. When derived (ggml files, or no such file)
    // suppressTokens is empty: the caller uses Tokenizer::nonSpeechTokens() as the reference does.
    bool fromGenerationConfig = false;
};

struct LoadOptions {
    // Scan every weight for NaN/Inf and fail naming the tensor and element. Reads all weights
    // once (a fraction of a second for tiny/base); turn off for the fastest possible load.
    bool checkFinite = true;
};

class WhisperModel {
public:
    // Loads a Hugging Face checkpoint directory (config.json + model.safetensors or a sharded
    // index), a CTranslate2 directory (model.bin + config.json + vocabulary, as faster-whisper
    // uses) or a whisper.cpp ggml .bin file; the format is detected from the path and contents.
    // A path to a file inside a checkpoint directory (model.safetensors, config.json, a
    // CTranslate2 model.bin) means its directory.
    static Result<std::shared_ptr<const WhisperModel>> load(const std::filesystem::path& path);
    static Result<std::shared_ptr<const WhisperModel>> load(const std::filesystem::path& path, const LoadOptions& options);

    const WhisperConfig& config() const { return m_config; }
    const WhisperWeights& weights() const { return m_weights; }
    ModelFormat format() const { return m_format; }
    const std::filesystem::path& path() const { return m_path; }

    // Byte strings of the ordinary (non-special) tokens, indexed by id; size 50256 for
    // English-only vocabularies (gpt2) and 50257 for multilingual ones. Empty for a Hugging Face
    // checkpoint without tokenizer files (vocab.json / tokenizer.json): weights only.
    const TokenTable& vocabulary() const { return *m_vocabulary; }
    // The same table, for a tokenizer to keep (Tokenizer::fromVocabulary) instead of a copy.
    const std::shared_ptr<const TokenTable>& sharedVocabulary() const { return m_vocabulary; }
    // [n_mels][201] slaney mel filterbank when the file carries one (ggml), else empty.
    const std::vector<float>& melFilters() const { return m_melFilters; }
    const GenerationSettings& generation() const { return m_generation; }

    // Bytes of weights as stored (all tensors), for reporting.
    size_t weightBytes() const { return m_weightBytes; }
    // Gives the pages of the mapped model files back to the system (MappedFile::releaseResidentPages):
    // after the load's scan of every weight, and once a backend has its copies.
    void releaseResidentPages() const;
    // The same for one tensor's pages, where it lies in one of the model's maps (a view of other
    // memory is left alone): for after a backend copied it.
    void releaseResidentPages(const TensorView& view) const;

    // Used by the loaders.
    struct Parts {
        WhisperConfig config;
        WhisperWeights weights;
        ModelFormat format = ModelFormat::HuggingFace;
        std::filesystem::path path;
        std::vector<std::string> vocabulary;
        std::vector<float> melFilters;
        GenerationSettings generation;
        std::vector<std::shared_ptr<const MappedFile>> files;   // keep the maps alive
        std::vector<std::shared_ptr<const void>> ownedBuffers;  // converted tensors, if any
        size_t weightBytes = 0;
    };
    explicit WhisperModel(Parts parts);

private:
    WhisperConfig m_config;
    WhisperWeights m_weights;
    ModelFormat m_format;
    std::filesystem::path m_path;
    std::shared_ptr<const TokenTable> m_vocabulary;  // never null
    std::vector<float> m_melFilters;
    GenerationSettings m_generation;
    std::vector<std::shared_ptr<const MappedFile>> m_files;
    std::vector<std::shared_ptr<const void>> m_ownedBuffers;
    size_t m_weightBytes = 0;
};

} // namespace hearsay
