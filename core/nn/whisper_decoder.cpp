// The decoder's forward pass, top to bottom (R = rows of the pass, d = width).
#include "core/nn/whisper_decoder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hearsay {

void DecoderPass::clear() {
    tokens.clear();
    positions.clear();
    selfBatches.clear();
    cacheWrites.clear();
    lastRows.clear();
    beams = 0;
    exactLogits = false;
    step = false;
}

WhisperDecoder::WhisperDecoder(const WhisperConfig& config, const NetworkWeights& weights, Backend& backend,
                               int maxBeams, LogitsReach logitsReach)
    : m_config(config),
      m_weights(weights),
      m_backend(backend),
      m_maxBeams(maxBeams),
      m_logitsReach(logitsReach),
      m_audioContext(config.nAudioCtx) {
    const size_t d = static_cast<size_t>(config.nTextState);
    m_last = backend.allocate(static_cast<size_t>(maxBeams) * d);
    m_logits = backend.allocate(static_cast<size_t>(maxBeams) * static_cast<size_t>(config.nVocab));
    m_stepIds = backend.allocateIndices(4 * static_cast<size_t>(maxBeams));
    for (int b = 0; b < maxBeams; ++b) {
        m_stepWrites.push_back({static_cast<size_t>(b), 0, 1});
        m_stepBatches.push_back({b, 1, 0, 1});
    }
    reserve(maxBeams);
}

void WhisperDecoder::reserve(int rows) {
    if (rows <= m_rowCapacity) return;
    // Round up so that a slowly growing prompt does not reallocate at every call.
    const int capacity = std::max(rows, std::min(m_rowCapacity * 2, m_maxBeams * m_config.nTextCtx));
    const size_t r = static_cast<size_t>(capacity), d = static_cast<size_t>(m_config.nTextState);
    m_x = m_backend.allocate(r * d);
    m_ln = m_backend.allocate(r * d);
    m_q = m_backend.allocate(r * d);
    m_k = m_backend.allocate(r * d);
    m_v = m_backend.allocate(r * d);
    m_attn = m_backend.allocate(r * d);
    m_hidden = m_backend.allocate(4 * r * d);
    const int keys = std::max(m_config.nAudioCtx, m_config.nTextCtx);
    m_scores = m_backend.allocate(std::max<size_t>(1, m_backend.attentionWorkspaceElements(capacity, keys)));
    m_passIds = m_backend.allocateIndices(2 * r);
    m_rowCapacity = capacity;
    ++m_bufferEpoch;
}

size_t WhisperDecoder::workspaceBytes() const {
    size_t bytes = 0;
    for (const auto* b : {&m_x, &m_ln, &m_q, &m_k, &m_v, &m_attn, &m_hidden, &m_scores, &m_last, &m_logits, &m_crossK,
                          &m_crossV, &m_wideLast, &m_wideLogits}) {
        if (*b) bytes += (*b)->bytes();
    }
    for (const auto* b : {&m_passIds, &m_stepIds}) {
        if (*b) bytes += (*b)->bytes();
    }
    return bytes;
}

void WhisperDecoder::releaseCrossScratch() {
    if (m_crossK) ++m_bufferEpoch;
    m_crossK.reset();
    m_crossV.reset();
}

void WhisperDecoder::setAudioContext(int positions) {
    if (positions < 1 || positions > m_config.nAudioCtx) throw std::logic_error("decoder: audio context out of range");
    if (positions != m_audioContext) ++m_bufferEpoch;
    m_audioContext = positions;
}

void WhisperDecoder::projectCrossLayer(int layer, BufferView encoderOut, BufferView keys, BufferView values) {
    const DeviceAttention& a = m_weights.decoderLayers[static_cast<size_t>(layer)].crossAttn;
    const int t = m_audioContext, d = m_config.nTextState;
    // K [T][d] = enc · Wkᵀ (no bias); V [T][d] = enc · Wvᵀ + bv
    const LinearTarget kv[] = {
        {viewOf(a.key.weight), {}, keys, d, false},
        {viewOf(a.value.weight), viewOf(a.value.bias), values, d, false},
    };
    m_backend.linearMany(encoderOut, kv, t, d);
}

void WhisperDecoder::projectCross(BufferView encoderOut, KvCache& cross) {
    for (int l = 0; l < m_config.nTextLayer; ++l) projectCrossLayer(l, encoderOut, cross.keys(l), cross.values(l));
    cross.setLength(0, m_audioContext);
}

void WhisperDecoder::prepare(const DecoderPass& pass, bool crossCacheOn) {
    const int rows = pass.rows();
    reserve(rows);
    if (!crossCacheOn && !m_crossK) {
        const size_t elements = static_cast<size_t>(m_config.nAudioCtx) * static_cast<size_t>(m_config.nTextState);
        m_crossK = m_backend.allocate(elements);
        m_crossV = m_backend.allocate(elements);
        ++m_bufferEpoch;
    }
    if (pass.beams > m_maxBeams) {
        const size_t wide = static_cast<size_t>(pass.beams);
        const size_t d = static_cast<size_t>(m_config.nTextState), vocab = static_cast<size_t>(m_config.nVocab);
        if (!m_wideLast || m_wideLast->elements() < wide * d) {
            m_wideLast = m_backend.allocate(wide * d);
            m_wideLogits = m_backend.allocate(wide * vocab);
        }
    }
    const size_t n = static_cast<size_t>(rows);
    if (pass.step) {
        // [4][maxBeams]: ids, positions, first cache row of each beam, cache row written.
        const size_t slots = static_cast<size_t>(m_maxBeams);
        m_indexHost.assign(4 * slots, 0);
        for (size_t b = 0; b < n; ++b) {
            m_indexHost[b] = pass.tokens[b];
            m_indexHost[slots + b] = pass.positions[b];
            m_indexHost[2 * slots + b] = static_cast<int32_t>(pass.selfBatches[b].keyRow);
            m_indexHost[3 * slots + b] = static_cast<int32_t>(pass.cacheWrites[b].dstRow);
        }
        m_backend.uploadIndices(IndexView(m_stepIds.get()), m_indexHost);
    } else {
        // [2][rows]: ids, then positions (one upload).
        m_indexHost.resize(2 * n);
        std::copy(pass.tokens.begin(), pass.tokens.end(), m_indexHost.begin());
        std::copy(pass.positions.begin(), pass.positions.end(), m_indexHost.begin() + static_cast<std::ptrdiff_t>(n));
        m_backend.uploadIndices(IndexView(m_passIds.get(), 0, 2 * n), m_indexHost);
    }
}

void WhisperDecoder::enqueue(const DecoderPass& pass, KvCache* selfCache, const KvCache* crossCache,
                             BufferView encoderOut, const CrossAttentionTap& tap) {
    Backend& be = m_backend;
    const NetworkWeights& w = m_weights;
    const int rows = pass.rows(), d = m_config.nTextState, heads = m_config.nTextHead;
    const int t = m_audioContext, vocab = m_config.nVocab;
    if (rows > m_rowCapacity || (!crossCache && !m_crossK)) throw std::logic_error("decoder: enqueue() before prepare()");
    if (pass.beams > m_maxBeams && (pass.step || !m_wideLast || m_wideLast->elements() < size_t(pass.beams) * size_t(d))) {
        throw std::logic_error("decoder: a pass with more logits rows than beams needs prepare()");
    }
    if (pass.step && (!selfCache || rows != pass.beams || rows > m_maxBeams)) {
        throw std::logic_error("decoder: a step pass needs the self cache and one row per beam");
    }
    const size_t rd = static_cast<size_t>(rows) * static_cast<size_t>(d);
    BufferView x = BufferView(m_x.get()).slice(0, rd), ln = BufferView(m_ln.get()).slice(0, rd);
    BufferView q = BufferView(m_q.get()).slice(0, rd), k = BufferView(m_k.get()).slice(0, rd);
    BufferView v = BufferView(m_v.get()).slice(0, rd), attn = BufferView(m_attn.get()).slice(0, rd);
    BufferView hidden = BufferView(m_hidden.get()).slice(0, 4 * rd);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d / heads));

    // Where the ids and positions are; a step also reads its cache rows from index buffers.
    const size_t n = static_cast<size_t>(rows), slots = static_cast<size_t>(m_maxBeams);
    IndexView ids, positions, firstCacheRows, writtenCacheRows;
    std::span<const RowCopy> cacheWrites = pass.cacheWrites;
    std::span<const AttentionBatch> selfBatches = pass.selfBatches;
    if (pass.step) {
        ids = IndexView(m_stepIds.get(), 0, n);
        positions = IndexView(m_stepIds.get(), slots, n);
        firstCacheRows = IndexView(m_stepIds.get(), 2 * slots, n);
        writtenCacheRows = IndexView(m_stepIds.get(), 3 * slots, n);
        // Beam b: pass row b -> cache row 0 + writtenCacheRows[b]; attends to keys
        // [firstCacheRows[b], + 1 + positions[b]).
        cacheWrites = std::span<const RowCopy>(m_stepWrites).first(n);
        selfBatches = std::span<const AttentionBatch>(m_stepBatches).first(n);
    } else {
        ids = IndexView(m_passIds.get(), 0, n);
        positions = IndexView(m_passIds.get(), n, n);
    }

    AttentionArgs self;
    self.q = q;
    self.out = attn;
    self.qStride = self.kvStride = self.outStride = d;
    self.heads = heads;
    self.headDim = d / heads;
    self.scale = scale;
    self.causal = true;
    self.batches = selfBatches;
    self.workspace = BufferView(m_scores.get());
    if (pass.step) {
        self.keyRowOffsets = firstCacheRows;
        self.keyCountOffsets = positions;
        self.maxKeys = m_config.nTextCtx;  // a beam's cache slot
    }

    // Cross-attention: every row of every beam reads the same keys, so all rows form one batch.
    const AttentionBatch crossBatch{0, rows, 0, t};
    AttentionArgs cross = self;
    cross.causal = false;
    cross.batches = std::span<const AttentionBatch>(&crossBatch, 1);
    cross.keyRowOffsets = {};
    cross.keyCountOffsets = {};
    cross.maxKeys = 0;

    // x [R][d] = token embedding + positional embedding
    be.embed(ids, positions, rows, viewOf(w.tokenEmbedding), viewOf(w.decoderPositional), d, x);
    for (int l = 0; l < m_config.nTextLayer; ++l) {
        const DeviceDecoderLayer& layer = w.decoderLayers[static_cast<size_t>(l)];
        // x += out_proj(causal self-attention(LN(x)))
        be.layerNorm(x, viewOf(layer.selfAttnLn.gamma), viewOf(layer.selfAttnLn.beta), ln, rows, d, kLayerNormEps);
        const LinearTarget qkv[] = {
            {viewOf(layer.selfAttn.query.weight), viewOf(layer.selfAttn.query.bias), q, d, false},
            {viewOf(layer.selfAttn.key.weight), {}, k, d, false},
            {viewOf(layer.selfAttn.value.weight), viewOf(layer.selfAttn.value.bias), v, d, false},
        };
        be.linearMany(ln, qkv, rows, d);
        if (selfCache) {
            // Write the new K/V rows at each beam's cursor, then attend over the cached positions.
            be.copyRows(k, d, selfCache->keys(l), d, d, cacheWrites, writtenCacheRows);
            be.copyRows(v, d, selfCache->values(l), d, d, cacheWrites, writtenCacheRows);
            self.k = selfCache->keys(l);
            self.v = selfCache->values(l);
        } else {
            self.k = k;
            self.v = v;
        }
        be.attention(self);
        be.linear(attn, viewOf(layer.selfAttn.out.weight), viewOf(layer.selfAttn.out.bias), x, rows, d, d, true);

        // x += out_proj(cross-attention(LN(x), encoder K/V))
        be.layerNorm(x, viewOf(layer.crossAttnLn.gamma), viewOf(layer.crossAttnLn.beta), ln, rows, d, kLayerNormEps);
        be.linear(ln, viewOf(layer.crossAttn.query.weight), viewOf(layer.crossAttn.query.bias), q, rows, d, d, false);
        if (crossCache) {
            cross.k = crossCache->keys(l);
            cross.v = crossCache->values(l);
        } else {
            projectCrossLayer(l, encoderOut, BufferView(m_crossK.get()), BufferView(m_crossV.get()));
            cross.k = BufferView(m_crossK.get());
            cross.v = BufferView(m_crossV.get());
        }
        if (tap) tap(l, q, cross.k);
        be.attention(cross);
        be.linear(attn, viewOf(layer.crossAttn.out.weight), viewOf(layer.crossAttn.out.bias), x, rows, d, d, true);

        // x += fc2(GELU(fc1(LN(x))))
        be.layerNorm(x, viewOf(layer.mlpLn.gamma), viewOf(layer.mlpLn.beta), ln, rows, d, kLayerNormEps);
        const LinearTarget fc1 = {viewOf(layer.fc1.weight), viewOf(layer.fc1.bias), hidden, 4 * d, false, true};
        be.linearMany(ln, {&fc1, 1}, rows, d);  // with GELU
        be.linear(hidden, viewOf(layer.fc2.weight), viewOf(layer.fc2.bias), x, rows, 4 * d, d, true);
    }
    // Only each beam's last row needs the final norm and the logits.
    const int beams = pass.beams;
    const bool wide = beams > m_maxBeams;
    BufferView last = BufferView((wide ? m_wideLast : m_last).get()).slice(0, static_cast<size_t>(beams) * static_cast<size_t>(d));
    BufferView out = BufferView((wide ? m_wideLogits : m_logits).get()).slice(0, static_cast<size_t>(beams) * static_cast<size_t>(vocab));
    be.copyRows(x, d, last, d, d, pass.lastRows);
    be.layerNorm(last, viewOf(w.decoderLn.gamma), viewOf(w.decoderLn.beta), last, beams, d, kLayerNormEps);
    // logits [B][vocab] = LN(x_last) · token_embeddingᵀ: exact for the special tokens and the text
    // tokens within reach of the largest.
    be.logits(last, viewOf(w.tokenEmbedding), out, beams, d, vocab, pass.exactLogits ? LogitsReach{} : m_logitsReach);
}

void WhisperDecoder::readLogits(int beams, std::vector<float>& logits) {
    const size_t count = static_cast<size_t>(beams) * static_cast<size_t>(m_config.nVocab);
    logits.resize(count);
    DeviceBuffer* source = beams > m_maxBeams ? m_wideLogits.get() : m_logits.get();
    m_backend.download(BufferView(source).slice(0, count), logits.data(), count);
}

} // namespace hearsay
