// CTranslate2's "WhisperSpec": which model.bin variable each Hugging Face weight lives in (fused
// projections are row blocks of one variable), and the scalar settings with the only values
// Whisper's network has. Shared by the reader (ctranslate2_checkpoint.cpp) and the writer
// (model_writer.cpp), so the two cannot disagree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {

constexpr const char* kWhisperSpecName = "WhisperSpec";
constexpr uint32_t kWhisperSpecRevision = 3;  // what ctranslate2 4.x writes; the reader accepts 1..3

// Rows [part·n/parts, (part+1)·n/parts) of a CTranslate2 variable.
struct Ct2Source {
    std::string variable;
    int part = 0;
    int parts = 1;
};

// Hugging Face weight name ("model.decoder.layers.0.self_attn.k_proj.weight") -> its source.
// Key projections have no bias in Whisper: the fused bias rows in their place must be zero.
std::map<std::string, Ct2Source> whisperCt2Sources(int encoderLayers, int decoderLayers);

// The fused biases and which of their row blocks belong to a key projection (to be zero).
struct Ct2ZeroRows {
    std::string variable;
    int part = 0;
    int parts = 1;
};
std::vector<Ct2ZeroRows> whisperCt2KeyBiasRows(int encoderLayers, int decoderLayers);

struct Ct2Scalar {
    const char* name;
    std::optional<int64_t> required;  // the only value Whisper has; none: any (unused by Hearsay)
    const char* meaning;
    std::optional<int64_t> written;   // what ctranslate2's converter stores (the heads: from the config); none: not written
    bool int16;                       // stored as int16 (else int8), as ctranslate2 does
};
const std::vector<Ct2Scalar>& whisperCt2Scalars();

constexpr const char* kCt2ProjectionAlias = "decoder/projection/weight";   // tied to:
constexpr const char* kCt2Embeddings = "decoder/embeddings/weight";

} // namespace hearsay
