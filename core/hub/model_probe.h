// A cheap check that a path is a loadable Whisper model, without loading its weights: the headers
// and configs are read through core/model's own readers (memory-mapped, tensor data untouched),
// so a truncated or foreign file is rejected with the reader's message.
#pragma once

#include "core/model/whisper_model.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace hearsay::hub {

struct ProbedModel {
    std::filesystem::path path;   // the directory (HF, CTranslate2) or the file (ggml)
    ModelFormat format = ModelFormat::HuggingFace;
    std::string sizeName;         // the official size its dimensions match ("tiny.en"), or "DxL" when none
    uint64_t bytes = 0;           // on disk (symlinks followed)
};

// Is `path` a model? An error says why not (naming the file and the problem).
Result<ProbedModel> probeModel(const std::filesystem::path& path);

// Whether `path` looks like a model candidate at all (a directory with model.bin or config.json,
// a file ending in .bin): the scan reports a failed probe of a candidate, ignores the rest.
bool looksLikeModel(const std::filesystem::path& path);

} // namespace hearsay::hub
