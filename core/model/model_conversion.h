// Writes any loaded model (Hugging Face, CTranslate2 or ggml) in another of the three formats, so
// that peers and references can read the same weights (hearsay-cli convert): whisper.cpp reads
// the ggml file, transformers the Hugging Face directory, faster-whisper the CTranslate2 one.
#pragma once

#include "core/model/tensor.h"
#include "core/model/whisper_model.h"
#include "core/util/result.h"

#include <filesystem>

namespace hearsay {

struct ConversionOptions {
    ModelFormat format = ModelFormat::HuggingFace;
    DType dtype = DType::F16;      // hf: f32/f16/bf16; ggml: f32/f16 or a block format; ct2: f32/f16/bf16
    int ct2IntegerBits = 0;        // ct2 only: 8 or 16 quantises the matrices as ctranslate2 does
    bool overwrite = false;        // replace an existing output
};

// The output is written beside `out` under a temporary name and renamed into place when complete,
// so a failed conversion (disk full, a model without vocabulary) leaves nothing half-written.
Result<void> convertModel(const WhisperModel& model, const std::filesystem::path& out, const ConversionOptions& options);

} // namespace hearsay
