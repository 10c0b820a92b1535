// Writes a Whisper model in either format from a weight generator, streaming tensor by tensor
// (in chunks), so even large-v3 in f32 (6 GB) never needs more than a few MB of memory.
#pragma once

#include "core/model/tensor.h"
#include "core/model/whisper_config.h"
#include "core/model/whisper_tensors.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace hearsay {

// Fills out[0..count) with elements [first, first + count) of the tensor (row-major PyTorch order).
using WeightGenerator = std::function<void(const TensorSpec& spec, int64_t first, int64_t count, float* out)>;

struct ModelWriteRequest {
    WhisperConfig config;
    DType dtype = DType::F32;              // hf: f32/f16/bf16; ggml: f32/f16 or a block format
    std::vector<std::string> vocabulary;   // ordinary tokens' bytes by id (at least ordinaryCount)
    std::vector<int> suppressTokens;       // generation_config.json suppress_tokens (hf); config.json suppress_ids (ct2)
    std::vector<std::pair<int, int>> alignmentHeads;  // (layer, head); empty: every head of the last half of the layers
    // CTranslate2 only: 8 or 16 stores the matrices as ctranslate2's int8 (a scale per row) or int16
    // (one scale) quantisation, the other tensors in float32; 0 stores everything as `dtype`.
    int ct2IntegerBits = 0;
    WeightGenerator weights;
};

// The dtype each tensor is stored as in a ggml file of the given file dtype, as whisper.cpp's
// converter and quantiser do: 1-D tensors, conv biases and positional embeddings in f32; conv
// weights f16 unless f32; 2-D matrices in the file dtype.
DType ggmlTensorDtype(const TensorSpec& spec, DType fileDtype);

// A directory with config.json, generation_config.json, model.safetensors and the tokenizer
// files (vocab.json, merges.txt, added_tokens.json, tokenizer_config.json,
// special_tokens_map.json), loadable by transformers' WhisperForConditionalGeneration.
Result<void> writeHuggingFaceCheckpoint(const std::filesystem::path& directory, const ModelWriteRequest& request);

// One whisper.cpp .bin file with the slaney mel filterbank and the vocabulary.
Result<void> writeGgmlModel(const std::filesystem::path& file, const ModelWriteRequest& request);

// A CTranslate2 directory as ctranslate2's converter writes it for faster-whisper: model.bin
// ("WhisperSpec" revision 3, fused q|k|v and cross k|v projections, the output projection an
// alias of the embedding), config.json, vocabulary.txt and tokenizer.json (what faster-whisper reads
// for its tokenizer). dtype f32, f16 or bf16.
Result<void> writeCTranslate2Checkpoint(const std::filesystem::path& directory, const ModelWriteRequest& request);

} // namespace hearsay
