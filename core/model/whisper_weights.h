// The weight tensors of a Whisper model, one field per checkpoint tensor. Each comment gives
// the Hugging Face name (model.*) and the OpenAI / whisper.cpp ggml name. Shapes in PyTorch
// order with d = width, n_mels, n_vocab, L = layers. Views point into the mapped file.
#pragma once

#include "core/model/tensor.h"

#include <vector>

namespace hearsay {

struct LinearWeights {
    TensorView weight;  // [out, in]
    TensorView bias;    // [out]; empty for key projections (Whisper has no key bias)
};

struct LayerNormWeights {
    TensorView gamma;   // [d]
    TensorView beta;    // [d]
};

struct AttentionWeights {
    LinearWeights query;  // *.q_proj / *.query
    LinearWeights key;    // *.k_proj / *.key   (no bias)
    LinearWeights value;  // *.v_proj / *.value
    LinearWeights out;    // *.out_proj / *.out
};

struct EncoderLayerWeights {
    LayerNormWeights attnLn;  // model.encoder.layers.i.self_attn_layer_norm / encoder.blocks.i.attn_ln
    AttentionWeights attn;    // model.encoder.layers.i.self_attn / encoder.blocks.i.attn
    LayerNormWeights mlpLn;   // model.encoder.layers.i.final_layer_norm / encoder.blocks.i.mlp_ln
    LinearWeights fc1;        // model.encoder.layers.i.fc1 [4d, d] / encoder.blocks.i.mlp.0
    LinearWeights fc2;        // model.encoder.layers.i.fc2 [d, 4d] / encoder.blocks.i.mlp.2
};

struct DecoderLayerWeights {
    LayerNormWeights selfAttnLn;   // model.decoder.layers.i.self_attn_layer_norm / decoder.blocks.i.attn_ln
    AttentionWeights selfAttn;     // model.decoder.layers.i.self_attn / decoder.blocks.i.attn
    LayerNormWeights crossAttnLn;  // model.decoder.layers.i.encoder_attn_layer_norm / decoder.blocks.i.cross_attn_ln
    AttentionWeights crossAttn;    // model.decoder.layers.i.encoder_attn / decoder.blocks.i.cross_attn
    LayerNormWeights mlpLn;        // model.decoder.layers.i.final_layer_norm / decoder.blocks.i.mlp_ln
    LinearWeights fc1;             // model.decoder.layers.i.fc1 / decoder.blocks.i.mlp.0
    LinearWeights fc2;             // model.decoder.layers.i.fc2 / decoder.blocks.i.mlp.2
};

struct WhisperWeights {
    LinearWeights conv1;               // model.encoder.conv1 / encoder.conv1: weight [d, n_mels, 3], bias [d]
    LinearWeights conv2;               // model.encoder.conv2 / encoder.conv2: weight [d, d, 3], bias [d]
    TensorView encoderPositional;      // model.encoder.embed_positions.weight / encoder.positional_embedding [1500, d]
    std::vector<EncoderLayerWeights> encoderLayers;
    LayerNormWeights encoderLn;        // model.encoder.layer_norm / encoder.ln_post

    TensorView tokenEmbedding;         // model.decoder.embed_tokens.weight / decoder.token_embedding.weight [n_vocab, d]
                                       // (also the output projection: weights are tied)
    TensorView decoderPositional;      // model.decoder.embed_positions.weight / decoder.positional_embedding [448, d]
    std::vector<DecoderLayerWeights> decoderLayers;
    LayerNormWeights decoderLn;        // model.decoder.layer_norm / decoder.ln
};

} // namespace hearsay
