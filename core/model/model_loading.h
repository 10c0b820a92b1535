// Internal to core/model: the checkpoint readers and the checks they share (tensor
// binding against whisper_tensors.h, generation-setting defaults).
#pragma once

#include "core/model/whisper_model.h"

#include <filesystem>
#include <map>
#include <string>

namespace hearsay {

Result<WhisperModel::Parts> loadHuggingFaceDirectory(const std::filesystem::path& directory, const LoadOptions& options);
Result<WhisperModel::Parts> loadGgmlFile(const std::filesystem::path& file, const LoadOptions& options);
Result<WhisperModel::Parts> loadCTranslate2Directory(const std::filesystem::path& directory, const LoadOptions& options);

struct FoundTensor {
    TensorView view;
    std::string file;  // the file it came from, for messages
};

// Fills parts.weights from `tensors` (keyed by HF names with the "model." prefix, or by ggml
// names): every expected tensor present with the expected shape and an allowed dtype, none
// left over, and (optionally) all values finite. Sets parts.weightBytes.
Result<void> bindWeights(std::map<std::string, FoundTensor> tensors, bool ggmlNames, const LoadOptions& options,
                         WhisperModel::Parts& parts);

// What the reference derives when a checkpoint carries no generation_config.json.
GenerationSettings derivedGenerationSettings(const WhisperConfig& config);

} // namespace hearsay
