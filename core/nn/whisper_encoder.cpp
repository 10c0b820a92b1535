// The encoder's forward pass, top to bottom (T = n_audio_ctx, d = width).
#include "core/nn/whisper_encoder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hearsay {

WhisperEncoder::WhisperEncoder(const WhisperConfig& config, const NetworkWeights& weights, Backend& backend)
    : m_config(config), m_weights(weights), m_backend(backend) {
    const size_t t = static_cast<size_t>(config.nAudioCtx), d = static_cast<size_t>(config.nAudioState);
    const size_t mels = static_cast<size_t>(config.nMels);
    const size_t blocks = (t + d - 1) / d;
    m_blockRows = (t + blocks - 1) / blocks;
    // ln (also the attention's output), q, k and v; the MLP's hidden rows over q, k and v; during
    // the convolutions conv1's output [2T][d], then each convolution's im2col columns.
    const size_t columns = std::max(backend.conv1dWorkspaceElements(int(2 * t), int(mels), 1),
                                    backend.conv1dWorkspaceElements(int(2 * t), int(d), 2));
    m_rows = backend.allocate(std::max({4 * t * d, t * d + 4 * m_blockRows * d, 2 * t * d + columns}));
    m_scores = backend.allocate(std::max<size_t>(1, backend.attentionWorkspaceElements(config.nAudioCtx, config.nAudioCtx)));
}

size_t WhisperEncoder::melElements() const {
    return 2 * static_cast<size_t>(m_config.nAudioCtx) * static_cast<size_t>(m_config.nMels);
}

size_t WhisperEncoder::workspaceBytes() const {
    size_t bytes = 0;
    for (const auto* b : {&m_rows, &m_scores}) bytes += (*b)->bytes();
    return bytes;
}

void WhisperEncoder::run(BufferView mel, BufferView out, int positions) {
    Backend& be = m_backend;
    const NetworkWeights& w = m_weights;
    const int t = positions, d = m_config.nAudioState, heads = m_config.nAudioHead;
    if (t < 1 || t > m_config.nAudioCtx) throw std::logic_error("encoder: audio context out of range");
    const size_t td = static_cast<size_t>(t) * static_cast<size_t>(d);
    // Buffers are sized for n_audio_ctx positions; this window uses the first t of each.
    const size_t full = static_cast<size_t>(m_config.nAudioCtx) * static_cast<size_t>(d);
    BufferView rows(m_rows.get());
    out = out.slice(0, td);
    BufferView x = out, ln = rows.slice(0, td);  // the residual stream in `out`, normed in place at the end
    BufferView q = rows.slice(full, td), k = rows.slice(2 * full, td);
    BufferView v = rows.slice(3 * full, td), attn = ln;
    BufferView hiddenRows = rows.slice(full, 4 * m_blockRows * static_cast<size_t>(d));  // over q, k and v, dead by then
    mel = mel.slice(0, 2 * static_cast<size_t>(t) * static_cast<size_t>(m_config.nMels));

    // conv1: [2T][n_mels] -> [2T][d], GELU; conv2 (stride 2): [2T][d] -> [T][d], GELU
    BufferView conv1Out = rows.slice(0, 2 * td);
    BufferView columns = rows.slice(2 * full, rows.size - 2 * full);
    be.conv1d(mel, 2 * t, m_config.nMels, viewOf(w.conv1.weight), viewOf(w.conv1.bias), conv1Out, d, 1, columns);
    be.gelu(conv1Out);
    be.conv1d(conv1Out, 2 * t, d, viewOf(w.conv2.weight), viewOf(w.conv2.bias), x, d, 2, columns);
    be.gelu(x);
    // + positional embedding rows [0, T)
    be.add(x, viewOf(w.encoderPositional).slice(0, td));

    const AttentionBatch batch{0, t, 0, t};
    AttentionArgs args;
    args.q = q;
    args.k = k;
    args.v = v;
    args.out = attn;
    args.qStride = args.kvStride = args.outStride = d;
    args.heads = heads;
    args.headDim = d / heads;
    args.scale = 1.0f / std::sqrt(static_cast<float>(d / heads));
    args.causal = false;
    args.batches = std::span<const AttentionBatch>(&batch, 1);
    args.workspace = BufferView(m_scores.get());

    for (const DeviceEncoderLayer& layer : w.encoderLayers) {
        // x += out_proj(attention(LN(x)))
        be.layerNorm(x, viewOf(layer.attnLn.gamma), viewOf(layer.attnLn.beta), ln, t, d, kLayerNormEps);
        const LinearTarget qkv[] = {
            {viewOf(layer.attn.query.weight), viewOf(layer.attn.query.bias), q, d, false},
            {viewOf(layer.attn.key.weight), {}, k, d, false},
            {viewOf(layer.attn.value.weight), viewOf(layer.attn.value.bias), v, d, false},
        };
        be.linearMany(ln, qkv, t, d);
        be.attention(args);
        be.linear(attn, viewOf(layer.attn.out.weight), viewOf(layer.attn.out.bias), x, t, d, d, true);
        // x += fc2(GELU(fc1(LN(x))))
        be.layerNorm(x, viewOf(layer.mlpLn.gamma), viewOf(layer.mlpLn.beta), ln, t, d, kLayerNormEps);
        for (int first = 0; first < t; first += int(m_blockRows)) {
            const int n = std::min(int(m_blockRows), t - first);
            const size_t at = size_t(first) * size_t(d), nd = size_t(n) * size_t(d);
            BufferView hidden = hiddenRows.slice(0, 4 * nd);
            const LinearTarget fc1 = {viewOf(layer.fc1.weight), viewOf(layer.fc1.bias), hidden, 4 * d, false, true};
            be.linearMany(ln.slice(at, nd), {&fc1, 1}, n, d);  // with GELU
            be.linear(hidden, viewOf(layer.fc2.weight), viewOf(layer.fc2.bias), x.slice(at, nd), n, 4 * d, d, true);
        }
    }
    be.layerNorm(x, viewOf(w.encoderLn.gamma), viewOf(w.encoderLn.beta), x, t, d, kLayerNormEps);
}

} // namespace hearsay
