// Shape checks and conversion of the model's weight views into backend buffers.
#include "core/nn/network_weights.h"

#include "core/backend/backend_error.h"

#include <stdexcept>
#include <string>

namespace hearsay {
namespace {

// Collects the first error; later conversions are skipped once one failed.
class Loader {
public:
    Loader(const WhisperModel& model, Backend& backend) : m_model(model), m_backend(backend) {}

    // logitsTable: the tied token embedding, loaded as Backend::loadLogitsTable() keeps it.
    std::unique_ptr<DeviceBuffer> tensor(const TensorView& view, const char* what, std::vector<int64_t> shape,
                                         bool atLeastRows = false, bool logitsTable = false) {
        if (m_error) return nullptr;
        if (view.empty()) return fail(std::string("weight ") + what + " is missing");
        bool ok = view.shape.size() == shape.size();
        for (size_t i = 0; ok && i < shape.size(); ++i) {
            ok = (i == 0 && atLeastRows) ? view.shape[i] >= shape[i] : view.shape[i] == shape[i];
        }
        if (!ok) {
            std::string expected = "[";
            for (size_t i = 0; i < shape.size(); ++i) expected += (i ? ", " : "") + std::to_string(shape[i]);
            return fail(std::string("weight ") + what + " (" + view.name + ") has shape " + view.shapeString() +
                        ", expected " + expected + "]" + (atLeastRows ? " or more rows" : ""));
        }
        try {
            std::unique_ptr<DeviceBuffer> buffer =
                logitsTable ? m_backend.loadLogitsTable(view) : m_backend.loadWeight(view);
            // The backend has its copy: the file's pages of it need not stay resident as well,
            // which would double the memory a model takes while it loads.
            m_model.releaseResidentPages(view);
            return buffer;
        } catch (const std::exception& e) {
            // Out of (device) memory, or a device that failed: the kind says which.
            return fail(std::string("cannot load weight ") + what + " (" + view.name + "): " +
                            describeBackendException(e),
                        backendErrorKind(e));
        }
    }

    DeviceLinear linear(const LinearWeights& w, const std::string& what, int64_t out, int64_t in, bool hasBias = true) {
        DeviceLinear result;
        result.weight = tensor(w.weight, (what + ".weight").c_str(), {out, in});
        if (hasBias) result.bias = tensor(w.bias, (what + ".bias").c_str(), {out});
        return result;
    }

    DeviceLayerNorm layerNorm(const LayerNormWeights& w, const std::string& what, int64_t d) {
        return {tensor(w.gamma, (what + ".weight").c_str(), {d}), tensor(w.beta, (what + ".bias").c_str(), {d})};
    }

    DeviceAttention attention(const AttentionWeights& w, const std::string& what, int64_t d) {
        return {linear(w.query, what + ".q_proj", d, d), linear(w.key, what + ".k_proj", d, d, false),
                linear(w.value, what + ".v_proj", d, d), linear(w.out, what + ".out_proj", d, d)};
    }

    bool failed() const { return m_error; }
    Error error() const { return Error{m_message, m_kind}; }

private:
    std::unique_ptr<DeviceBuffer> fail(std::string message, ErrorKind kind = ErrorKind::BadInput) {
        if (!m_error) {
            m_message = std::move(message);
            m_kind = kind;
        }
        m_error = true;
        return nullptr;
    }

    const WhisperModel& m_model;
    Backend& m_backend;
    bool m_error = false;
    std::string m_message;
    ErrorKind m_kind = ErrorKind::BadInput;
};

// Calls f(buffer) for every buffer of the set (null ones included: an absent bias).
template <class F>
void forEachBuffer(const NetworkWeights& n, F&& f) {
    auto linear = [&](const DeviceLinear& l) { f(l.weight); f(l.bias); };
    auto norm = [&](const DeviceLayerNorm& l) { f(l.gamma); f(l.beta); };
    auto attention = [&](const DeviceAttention& a) { linear(a.query); linear(a.key); linear(a.value); linear(a.out); };
    linear(n.conv1);
    linear(n.conv2);
    f(n.encoderPositional);
    for (const DeviceEncoderLayer& l : n.encoderLayers) {
        norm(l.attnLn);
        attention(l.attn);
        norm(l.mlpLn);
        linear(l.fc1);
        linear(l.fc2);
    }
    norm(n.encoderLn);
    f(n.tokenEmbedding);
    f(n.decoderPositional);
    for (const DeviceDecoderLayer& l : n.decoderLayers) {
        norm(l.selfAttnLn);
        attention(l.selfAttn);
        norm(l.crossAttnLn);
        attention(l.crossAttn);
        norm(l.mlpLn);
        linear(l.fc1);
        linear(l.fc2);
    }
    norm(n.decoderLn);
}

} // namespace

size_t NetworkWeights::buffers() const {
    size_t count = 0;
    forEachBuffer(*this, [&](const std::unique_ptr<DeviceBuffer>& b) { count += b ? 1 : 0; });
    return count;
}

size_t NetworkWeights::bytes() const {
    size_t total = 0;
    forEachBuffer(*this, [&](const std::unique_ptr<DeviceBuffer>& b) { total += b ? b->bytes() : 0; });
    return total;
}

Result<NetworkWeights> NetworkWeights::load(const WhisperModel& model, Backend& backend) {
    const WhisperConfig& c = model.config();
    if (auto valid = c.validate(); !valid) return valid.error();
    if (c.nAudioState != c.nTextState) {
        return makeError("encoder width " + std::to_string(c.nAudioState) + " differs from decoder width " +
                         std::to_string(c.nTextState) + "; cross-attention needs them equal");
    }
    const WhisperWeights& w = model.weights();
    if (static_cast<int>(w.encoderLayers.size()) != c.nAudioLayer ||
        static_cast<int>(w.decoderLayers.size()) != c.nTextLayer) {
        return makeError("the model has " + std::to_string(w.encoderLayers.size()) + " encoder and " +
                         std::to_string(w.decoderLayers.size()) + " decoder layers, its config says " +
                         std::to_string(c.nAudioLayer) + " and " + std::to_string(c.nTextLayer));
    }
    const int64_t d = c.nAudioState, mels = c.nMels;
    Loader load(model, backend);
    NetworkWeights n;
    n.conv1.weight = load.tensor(w.conv1.weight, "model.encoder.conv1.weight", {d, mels, 3});
    n.conv1.bias = load.tensor(w.conv1.bias, "model.encoder.conv1.bias", {d});
    n.conv2.weight = load.tensor(w.conv2.weight, "model.encoder.conv2.weight", {d, d, 3});
    n.conv2.bias = load.tensor(w.conv2.bias, "model.encoder.conv2.bias", {d});
    n.encoderPositional = load.tensor(w.encoderPositional, "model.encoder.embed_positions.weight", {c.nAudioCtx, d}, true);
    for (int i = 0; i < c.nAudioLayer && !load.failed(); ++i) {
        const auto& src = w.encoderLayers[static_cast<size_t>(i)];
        const std::string p = "model.encoder.layers." + std::to_string(i);
        DeviceEncoderLayer layer;
        layer.attnLn = load.layerNorm(src.attnLn, p + ".self_attn_layer_norm", d);
        layer.attn = load.attention(src.attn, p + ".self_attn", d);
        layer.mlpLn = load.layerNorm(src.mlpLn, p + ".final_layer_norm", d);
        layer.fc1 = load.linear(src.fc1, p + ".fc1", 4 * d, d);
        layer.fc2 = load.linear(src.fc2, p + ".fc2", d, 4 * d);
        n.encoderLayers.push_back(std::move(layer));
    }
    n.encoderLn = load.layerNorm(w.encoderLn, "model.encoder.layer_norm", d);
    n.tokenEmbedding = load.tensor(w.tokenEmbedding, "model.decoder.embed_tokens.weight", {c.nVocab, d}, false, true);
    n.decoderPositional = load.tensor(w.decoderPositional, "model.decoder.embed_positions.weight", {c.nTextCtx, d}, true);
    for (int i = 0; i < c.nTextLayer && !load.failed(); ++i) {
        const auto& src = w.decoderLayers[static_cast<size_t>(i)];
        const std::string p = "model.decoder.layers." + std::to_string(i);
        DeviceDecoderLayer layer;
        layer.selfAttnLn = load.layerNorm(src.selfAttnLn, p + ".self_attn_layer_norm", d);
        layer.selfAttn = load.attention(src.selfAttn, p + ".self_attn", d);
        layer.crossAttnLn = load.layerNorm(src.crossAttnLn, p + ".encoder_attn_layer_norm", d);
        layer.crossAttn = load.attention(src.crossAttn, p + ".encoder_attn", d);
        layer.mlpLn = load.layerNorm(src.mlpLn, p + ".final_layer_norm", d);
        layer.fc1 = load.linear(src.fc1, p + ".fc1", 4 * d, d);
        layer.fc2 = load.linear(src.fc2, p + ".fc2", d, 4 * d);
        n.decoderLayers.push_back(std::move(layer));
    }
    n.decoderLn = load.layerNorm(w.decoderLn, "model.decoder.layer_norm", d);
    if (load.failed()) return load.error();
    return n;
}

} // namespace hearsay
