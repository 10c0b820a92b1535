// The WhisperSpec naming (see ctranslate2_whisper_spec.h).
#include "core/model/ctranslate2_whisper_spec.h"

namespace hearsay {

std::map<std::string, Ct2Source> whisperCt2Sources(int encoderLayers, int decoderLayers) {
    std::map<std::string, Ct2Source> m;
    auto linear = [&](const std::string& hf, const std::string& ct2, int part, int parts, bool bias) {
        m[hf + ".weight"] = {ct2 + "/weight", part, parts};
        if (bias) m[hf + ".bias"] = {ct2 + "/bias", part, parts};
    };
    auto layerNorm = [&](const std::string& hf, const std::string& ct2) {
        m[hf + ".weight"] = {ct2 + "/gamma"};
        m[hf + ".bias"] = {ct2 + "/beta"};
    };
    auto selfAttention = [&](const std::string& hf, const std::string& ct2) {
        linear(hf + ".q_proj", ct2 + "/linear_0", 0, 3, true);
        linear(hf + ".k_proj", ct2 + "/linear_0", 1, 3, false);
        linear(hf + ".v_proj", ct2 + "/linear_0", 2, 3, true);
        linear(hf + ".out_proj", ct2 + "/linear_1", 0, 1, true);
    };
    linear("model.encoder.conv1", "encoder/conv1", 0, 1, true);
    linear("model.encoder.conv2", "encoder/conv2", 0, 1, true);
    m["model.encoder.embed_positions.weight"] = {"encoder/position_encodings/encodings"};
    for (int i = 0; i < encoderLayers; ++i) {
        const std::string hf = "model.encoder.layers." + std::to_string(i);
        const std::string ct2 = "encoder/layer_" + std::to_string(i);
        layerNorm(hf + ".self_attn_layer_norm", ct2 + "/self_attention/layer_norm");
        selfAttention(hf + ".self_attn", ct2 + "/self_attention");
        layerNorm(hf + ".final_layer_norm", ct2 + "/ffn/layer_norm");
        linear(hf + ".fc1", ct2 + "/ffn/linear_0", 0, 1, true);
        linear(hf + ".fc2", ct2 + "/ffn/linear_1", 0, 1, true);
    }
    layerNorm("model.encoder.layer_norm", "encoder/layer_norm");
    m["model.decoder.embed_tokens.weight"] = {kCt2Embeddings};
    m["model.decoder.embed_positions.weight"] = {"decoder/position_encodings/encodings"};
    for (int i = 0; i < decoderLayers; ++i) {
        const std::string hf = "model.decoder.layers." + std::to_string(i);
        const std::string ct2 = "decoder/layer_" + std::to_string(i);
        layerNorm(hf + ".self_attn_layer_norm", ct2 + "/self_attention/layer_norm");
        selfAttention(hf + ".self_attn", ct2 + "/self_attention");
        layerNorm(hf + ".encoder_attn_layer_norm", ct2 + "/attention/layer_norm");
        linear(hf + ".encoder_attn.q_proj", ct2 + "/attention/linear_0", 0, 1, true);
        linear(hf + ".encoder_attn.k_proj", ct2 + "/attention/linear_1", 0, 2, false);
        linear(hf + ".encoder_attn.v_proj", ct2 + "/attention/linear_1", 1, 2, true);
        linear(hf + ".encoder_attn.out_proj", ct2 + "/attention/linear_2", 0, 1, true);
        layerNorm(hf + ".final_layer_norm", ct2 + "/ffn/layer_norm");
        linear(hf + ".fc1", ct2 + "/ffn/linear_0", 0, 1, true);
        linear(hf + ".fc2", ct2 + "/ffn/linear_1", 0, 1, true);
    }
    layerNorm("model.decoder.layer_norm", "decoder/layer_norm");
    return m;
}

std::vector<Ct2ZeroRows> whisperCt2KeyBiasRows(int encoderLayers, int decoderLayers) {
    std::vector<Ct2ZeroRows> rows;
    for (int i = 0; i < encoderLayers; ++i) rows.push_back({"encoder/layer_" + std::to_string(i) + "/self_attention/linear_0/bias", 1, 3});
    for (int i = 0; i < decoderLayers; ++i) {
        const std::string layer = "decoder/layer_" + std::to_string(i);
        rows.push_back({layer + "/self_attention/linear_0/bias", 1, 3});
        rows.push_back({layer + "/attention/linear_1/bias", 0, 2});
    }
    return rows;
}

const std::vector<Ct2Scalar>& whisperCt2Scalars() {
    static const std::vector<Ct2Scalar> scalars = {
        {"encoder/num_heads", std::nullopt, "encoder heads", 0, true},
        {"decoder/num_heads", std::nullopt, "decoder heads", 0, true},
        {"decoder/activation", 3, "the MLP activation (3: exact GELU)", 3, false},
        {"decoder/pre_norm", 1, "pre-norm layers", 1, false},
        {"decoder/alibi", 0, "ALiBi positions", 0, false},
        {"decoder/alibi_use_positive_positions", std::nullopt, "an ALiBi option", std::nullopt, false},
        {"decoder/scale_alibi", std::nullopt, "an ALiBi option", std::nullopt, false},
        {"decoder/scale_embeddings", 0, "embeddings scaled by sqrt(d)", 0, false},
        {"decoder/embeddings/multiply_by_sqrt_depth", 0, "embeddings scaled by sqrt(d)", std::nullopt, false},
        {"decoder/start_from_zero_embedding", 0, "a zero embedding at the first step", 0, false},
        {"decoder/alignment_heads", std::nullopt, "guided-alignment heads (translation models; unused)", 1, true},
        {"decoder/alignment_layer", std::nullopt, "the guided-alignment layer (translation models; unused)", -1, true},
    };
    return scalars;
}

} // namespace hearsay
