// Reads the vocabulary (token id -> bytes) stored in a whisper.cpp ggml model file, which
// precedes the tensors; works on files that hold no tensors at all.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace hearsay {

struct GgmlVocabulary {
    int32_t nVocab = 0;               // hparams n_vocab: the model's vocabulary size, specials included
    std::vector<std::string> tokens;  // id -> bytes; whisper.cpp stores the ordinary tokens only
    size_t endOffset = 0;             // byte offset just past the vocabulary, where the tensors start
};

// ggml layout: uint32 magic 0x67676d6c, int32 hparams[11] (n_vocab, n_audio_ctx, n_audio_state,
// n_audio_head, n_audio_layer, n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels,
// ftype), int32 n_mel, int32 n_fft, float32 filters[n_mel][n_fft], int32 count, then count
// entries of (uint32 length, length bytes). All little-endian. `name` labels error messages.
Result<GgmlVocabulary> parseGgmlVocabulary(std::span<const std::byte> file, const std::string& name);

// The token byte strings of a ggml file.
Result<std::vector<std::string>> readGgmlVocabulary(const std::filesystem::path& path);

} // namespace hearsay
