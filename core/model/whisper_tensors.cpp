// Enumerates Whisper's weight tensors (names, shapes, init) for loaders and writers.
#include "core/model/whisper_tensors.h"

#include "core/model/quantize.h"

#include <cmath>

namespace hearsay {
namespace {

class SpecBuilder {
public:
    explicit SpecBuilder(std::vector<TensorSpec>& out) : m_out(out) {}

    void add(std::string hf, std::string ggml, std::vector<int64_t> shape, TensorKind kind, double mean, double stddev,
             TensorView* target) {
        TensorSpec s;
        s.hfName = "model." + std::move(hf);
        s.ggmlName = std::move(ggml);
        s.ggmlShape = shape;
        s.shape = std::move(shape);
        s.kind = kind;
        s.initMean = mean;
        s.initStd = stddev;
        s.target = target;
        m_out.push_back(std::move(s));
    }

    // Linear layer: weight [out, in] with std 1/sqrt(in); bias [out] unless `bias` is null.
    void linear(const std::string& hf, const std::string& ggml, int64_t out, int64_t in, LinearWeights* w, bool bias) {
        add(hf + ".weight", ggml + ".weight", {out, in}, TensorKind::Matrix, 0.0, 1.0 / std::sqrt(double(in)),
            w ? &w->weight : nullptr);
        if (bias) add(hf + ".bias", ggml + ".bias", {out}, TensorKind::Vector, 0.0, 0.05, w ? &w->bias : nullptr);
    }

    void layerNorm(const std::string& hf, const std::string& ggml, int64_t d, LayerNormWeights* w) {
        add(hf + ".weight", ggml + ".weight", {d}, TensorKind::Vector, 1.0, 0.1, w ? &w->gamma : nullptr);
        add(hf + ".bias", ggml + ".bias", {d}, TensorKind::Vector, 0.0, 0.05, w ? &w->beta : nullptr);
    }

    void attention(const std::string& hf, const std::string& ggml, int64_t d, AttentionWeights* w) {
        linear(hf + ".q_proj", ggml + ".query", d, d, w ? &w->query : nullptr, true);
        linear(hf + ".k_proj", ggml + ".key", d, d, w ? &w->key : nullptr, false);
        linear(hf + ".v_proj", ggml + ".value", d, d, w ? &w->value : nullptr, true);
        linear(hf + ".out_proj", ggml + ".out", d, d, w ? &w->out : nullptr, true);
    }

    void conv(const std::string& name, int64_t d, int64_t in, LinearWeights* w) {
        add("encoder." + name + ".weight", "encoder." + name + ".weight", {d, in, 3}, TensorKind::Conv, 0.0,
            1.0 / std::sqrt(double(in * 3)), w ? &w->weight : nullptr);
        add("encoder." + name + ".bias", "encoder." + name + ".bias", {d}, TensorKind::Vector, 0.0, 0.05,
            w ? &w->bias : nullptr);
        m_out.back().ggmlShape = {d, 1};  // convert-pt-to-ggml.py stores conv biases as [n, 1]
    }

private:
    std::vector<TensorSpec>& m_out;
};

} // namespace

int64_t TensorSpec::elements() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

std::vector<TensorSpec> whisperTensorSpecs(const WhisperConfig& c, WhisperWeights* w) {
    if (w) {
        w->encoderLayers.resize(size_t(c.nAudioLayer));
        w->decoderLayers.resize(size_t(c.nTextLayer));
    }
    std::vector<TensorSpec> specs;
    SpecBuilder b(specs);
    const int64_t da = c.nAudioState, dt = c.nTextState;

    b.conv("conv1", da, c.nMels, w ? &w->conv1 : nullptr);
    b.conv("conv2", da, da, w ? &w->conv2 : nullptr);
    b.add("encoder.embed_positions.weight", "encoder.positional_embedding", {c.nAudioCtx, da}, TensorKind::Positional,
          0.0, 0.1, w ? &w->encoderPositional : nullptr);
    for (int i = 0; i < c.nAudioLayer; ++i) {
        EncoderLayerWeights* l = w ? &w->encoderLayers[size_t(i)] : nullptr;
        const std::string hf = "encoder.layers." + std::to_string(i);
        const std::string gg = "encoder.blocks." + std::to_string(i);
        b.attention(hf + ".self_attn", gg + ".attn", da, l ? &l->attn : nullptr);
        b.layerNorm(hf + ".self_attn_layer_norm", gg + ".attn_ln", da, l ? &l->attnLn : nullptr);
        b.linear(hf + ".fc1", gg + ".mlp.0", 4 * da, da, l ? &l->fc1 : nullptr, true);
        b.linear(hf + ".fc2", gg + ".mlp.2", da, 4 * da, l ? &l->fc2 : nullptr, true);
        b.layerNorm(hf + ".final_layer_norm", gg + ".mlp_ln", da, l ? &l->mlpLn : nullptr);
    }
    b.layerNorm("encoder.layer_norm", "encoder.ln_post", da, w ? &w->encoderLn : nullptr);

    b.add("decoder.embed_tokens.weight", "decoder.token_embedding.weight", {c.nVocab, dt}, TensorKind::Matrix, 0.0,
          1.0 / std::sqrt(double(dt)), w ? &w->tokenEmbedding : nullptr);
    b.add("decoder.embed_positions.weight", "decoder.positional_embedding", {c.nTextCtx, dt}, TensorKind::Positional,
          0.0, 0.1, w ? &w->decoderPositional : nullptr);
    for (int i = 0; i < c.nTextLayer; ++i) {
        DecoderLayerWeights* l = w ? &w->decoderLayers[size_t(i)] : nullptr;
        const std::string hf = "decoder.layers." + std::to_string(i);
        const std::string gg = "decoder.blocks." + std::to_string(i);
        b.attention(hf + ".self_attn", gg + ".attn", dt, l ? &l->selfAttn : nullptr);
        b.layerNorm(hf + ".self_attn_layer_norm", gg + ".attn_ln", dt, l ? &l->selfAttnLn : nullptr);
        b.attention(hf + ".encoder_attn", gg + ".cross_attn", dt, l ? &l->crossAttn : nullptr);
        b.layerNorm(hf + ".encoder_attn_layer_norm", gg + ".cross_attn_ln", dt, l ? &l->crossAttnLn : nullptr);
        b.linear(hf + ".fc1", gg + ".mlp.0", 4 * dt, dt, l ? &l->fc1 : nullptr, true);
        b.linear(hf + ".fc2", gg + ".mlp.2", dt, 4 * dt, l ? &l->fc2 : nullptr, true);
        b.layerNorm(hf + ".final_layer_norm", gg + ".mlp_ln", dt, l ? &l->mlpLn : nullptr);
    }
    b.layerNorm("decoder.layer_norm", "decoder.ln", dt, w ? &w->decoderLn : nullptr);
    return specs;
}

bool dtypeAllowed(const TensorSpec& spec, DType dtype) {
    if (!isQuantized(dtype)) return true;
    if (spec.kind != TensorKind::Matrix && spec.kind != TensorKind::Positional) return false;
    return spec.shape.size() == 2 && spec.shape[1] % kQuantBlock == 0;
}

} // namespace hearsay
