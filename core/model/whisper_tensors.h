// The complete list of a Whisper model's weight tensors for a given config: Hugging Face and
// OpenAI/ggml names, expected shapes, the init distribution of the random-weight scheme, and
// (optionally) the WhisperWeights field each one binds to. Loaders, writers and tests share it.
#pragma once

#include "core/model/tensor.h"
#include "core/model/whisper_config.h"
#include "core/model/whisper_weights.h"

#include <string>
#include <vector>

namespace hearsay {

enum class TensorKind {
    Matrix,      // Linear weight [out, in] or the token embedding [n_vocab, d]: may be quantised
    Conv,        // conv weight [d, in_channels, 3]
    Vector,      // bias or LayerNorm parameter [d]
    Positional,  // positional embedding [ctx, d]
};

struct TensorSpec {
    std::string hfName;                // "model.encoder.layers.0.fc1.weight" (prefix "model.")
    std::string ggmlName;              // "encoder.blocks.0.mlp.0.weight" (OpenAI name)
    std::vector<int64_t> shape;        // PyTorch order, as in the HF checkpoint
    std::vector<int64_t> ggmlShape;    // PyTorch order as stored in ggml (conv biases: [d, 1])
    TensorKind kind = TensorKind::Matrix;
    double initMean = 0.0;             // random-weight scheme: mean and standard deviation
    double initStd = 0.0;
    TensorView* target = nullptr;      // field of the bound WhisperWeights, when binding

    int64_t elements() const;
};

// Tensors in a fixed order (encoder first, then decoder; within a layer as listed in
// whisper_weights.h). When `bind` is given, its layer vectors are resized and each spec's
// `target` points at the matching TensorView; views already there are kept, so binding a copy of
// a loaded model's weights lists that model's tensors by name.
std::vector<TensorSpec> whisperTensorSpecs(const WhisperConfig& config, WhisperWeights* bind = nullptr);

// The dtypes a tensor of this kind may be stored as; quantised types only for 2-D tensors
// whose rows are a whole number of 32-element blocks.
bool dtypeAllowed(const TensorSpec& spec, DType dtype);

} // namespace hearsay
