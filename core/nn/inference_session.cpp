// WhisperSession: the InferenceSession of the CPU/CUDA engine. It owns the per-stream state
// (encoder output, both KV caches, decode workspace) and maps decode() calls onto decoder
// passes that run only the tokens not yet cached. Backend exceptions become error results.
#include "core/nn/inference_session.h"

#include "core/backend/backend.h"
#include "core/backend/backend_error.h"
#include "core/nn/kv_cache.h"
#include "core/nn/device_weights.h"
#include "core/nn/network_weights.h"
#include "core/nn/step_recordings.h"
#include "core/nn/whisper_decoder.h"
#include "core/nn/whisper_encoder.h"
#include "core/text/tokenizer.h"
#include "core/util/stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace hearsay {
namespace {

using Clock = std::chrono::steady_clock;

std::string describe(const std::exception& e) { return describeBackendException(e); }

// The decoder's exact logits: every special token's (from end-of-text on), and the text tokens'
// within reach of the options' count of largest.
LogitsReach textLogitsReach(const WhisperConfig& config, const SessionOptions& options) {
    const int eot = std::clamp(SpecialTokens::forVocabularySize(config.nVocab).eot, 0, config.nVocab);
    if (options.exactTextLogits <= 0 || options.exactTextLogits >= eot) return {};
    return {eot, options.exactTextLogits};
}

class WhisperSession final : public InferenceSession {
public:
    WhisperSession(std::shared_ptr<const DeviceWeights> weights, SessionOptions options)
        : m_weights(std::move(weights)), m_backend(m_weights->sharedBackend()), m_options(options),
          m_config(m_weights->model().config()),
          m_self("self-attention", {m_config.nTextLayer, options.maxBeams, m_config.nTextCtx, m_config.nTextState}),
          m_cross("cross-attention", {m_config.nTextLayer, 1, m_config.nAudioCtx, m_config.nTextState, true}),
          m_beamTokens(static_cast<size_t>(options.maxBeams)) {
        m_selfOn.store(options.selfAttentionCache);
        m_crossOn.store(options.crossAttentionCache);
        m_stepGraphsOn.store(options.stepGraphs);
    }

    // Allocations that can fail; called once by create().
    Result<void> initialise() {
        try {
            m_encoder = std::make_unique<WhisperEncoder>(m_config, m_weights->network(), *m_backend);
            m_decoder = std::make_unique<WhisperDecoder>(m_config, m_weights->network(), *m_backend, m_options.maxBeams,
                                                         textLogitsReach(m_config, m_options));
            m_mel = m_backend->allocate(m_encoder->melElements());
            m_encoderOut = m_backend->allocate(static_cast<size_t>(m_config.nAudioCtx) *
                                               static_cast<size_t>(m_config.nAudioState));
        } catch (const std::exception& e) {
            return backendError("cannot allocate the session's buffers: ", e);
        }
        if (m_selfOn) {
            if (auto ok = allocateCache(m_self); !ok) return ok;
        }
        if (m_crossOn) {
            if (auto ok = allocateCache(m_cross); !ok) return ok;
        }
        m_melHost.resize(m_encoder->melElements());
        updateWorkspaceBytes();
        return {};
    }

    using InferenceSession::encode;
    Result<void> encode(const LogMel& mel, int audioContext) override {
        const int frames = 2 * m_config.nAudioCtx;
        if (audioContext < 0 || audioContext > m_config.nAudioCtx) {
            return makeError("encode: audio context " + std::to_string(audioContext) + " outside 0.." +
                             std::to_string(m_config.nAudioCtx));
        }
        const int positions = audioContext == 0 ? m_config.nAudioCtx : audioContext;
        if (mel.nMels != m_config.nMels || mel.frames != frames ||
            mel.data.size() != static_cast<size_t>(mel.nMels) * static_cast<size_t>(mel.frames)) {
            return makeError("encode: the log-mel is " + std::to_string(mel.nMels) + " x " + std::to_string(mel.frames) +
                             " (" + std::to_string(mel.data.size()) + " values), the model needs " +
                             std::to_string(m_config.nMels) + " x " + std::to_string(frames));
        }
        const auto start = Clock::now();
        resetDecoder();
        m_encoded = false;
        m_crossValid = false;
        // [n_mels][frames] -> [frames][n_mels]: the encoder's convolutions are time-major. Only
        // the frames the positions need (2 per position).
        const size_t mels = static_cast<size_t>(mel.nMels), n = static_cast<size_t>(frames);
        const size_t used = 2 * static_cast<size_t>(positions);
        for (size_t f = 0; f < used; ++f) {
            for (size_t m = 0; m < mels; ++m) m_melHost[f * mels + m] = mel.data[m * n + f];
        }
        try {
            m_backend->upload(BufferView(m_mel.get()).slice(0, used * mels), m_melHost.data(), used * mels);
            m_decoder->setAudioContext(positions);
            m_encoder->run(BufferView(m_mel.get()), BufferView(m_encoderOut.get()), positions);
            m_encoded = true;
            if (m_crossOn) {
                if (auto ok = fillCrossCache(); !ok) return ok;
            }
            m_backend->synchronize();
        } catch (const std::exception& e) {
            return backendError(dynamic_cast<const std::bad_alloc*>(&e) ? "encoder ran out of memory: "
                                                                        : "encoder failed: ",
                                e);
        }
        std::lock_guard lock(m_timingsMutex);
        m_timings = {};
        m_timings.encoderMs = msSince(start);
        return {};
    }

    Result<void> decode(const std::vector<std::vector<int>>& beamTokens, std::vector<float>& logits) override {
        if (m_pendingError) {
            Error error = std::move(*m_pendingError);
            m_pendingError.reset();
            return error;
        }
        if (!m_encoded) return makeError("decode: no audio window encoded yet (call encode() first)");
        const int beams = static_cast<int>(beamTokens.size());
        if (beams < 1 || beams > m_options.maxBeams) {
            return makeError("decode: " + std::to_string(beams) + " beams, the session holds 1 to " +
                             std::to_string(m_options.maxBeams));
        }
        for (int b = 0; b < beams; ++b) {
            const auto& tokens = beamTokens[static_cast<size_t>(b)];
            if (tokens.empty()) return makeError("decode: beam " + std::to_string(b) + " has no tokens");
            if (static_cast<int>(tokens.size()) > m_config.nTextCtx) {
                return makeError("decode: beam " + std::to_string(b) + " has " + std::to_string(tokens.size()) +
                                 " tokens, more than the text context of " + std::to_string(m_config.nTextCtx));
            }
            for (int token : tokens) {
                if (token < 0 || token >= m_config.nVocab) {
                    return makeError("decode: token id " + std::to_string(token) + " outside the vocabulary (0.." +
                                     std::to_string(m_config.nVocab - 1) + ")");
                }
            }
        }
        const bool selfOn = m_selfOn.load();
        if (selfOn) {
            if (auto ok = allocateCache(m_self); !ok) return ok;
        }
        const bool crossOn = m_crossOn.load();
        if (crossOn && !m_crossValid) {
            if (auto ok = fillCrossCache(); !ok) return ok;
        }
        const auto start = Clock::now();
        buildPass(beamTokens, selfOn);
        bool recorded = false, replayed = false, inGraph = false;
        size_t operations = 0;  // of a new recording
        try {
            KvCache* self = selfOn ? &m_self : nullptr;
            const KvCache* cross = crossOn ? &m_cross : nullptr;
            const BufferView encoderOut(m_encoderOut.get());
            m_decoder->prepare(m_pass, crossOn);
            if (m_pass.step && m_stepGraphsOn.load()) {
                // The same ops every step of this shape: replay the recording, or run eagerly
                // the first time (lazily sized scratch and library heuristics get warm), then
                // record the second time. prepare() has uploaded this step's values.
                // Every part of the epoch only grows, so their sum changes whenever one does.
                const StepShape shape{m_pass.beams, crossOn,
                                      m_decoder->bufferEpoch() + m_cacheEpoch.load() + m_backend->scratchGeneration()};
                RecordedWork* work = m_recordings.find(shape);
                if (!work && !m_recordings.hasRun(shape)) {
                    m_decoder->enqueue(m_pass, self, cross, encoderOut);
                    m_recordings.markRun(shape);
                } else {
                    inGraph = true;
                    if (!work) {
                        work = m_recordings.store(
                            shape, m_backend->record([&] { m_decoder->enqueue(m_pass, self, cross, encoderOut); }));
                        recorded = true;
                        operations = work->operations();
                    }
                    work->replay();
                    replayed = true;
                    inGraph = false;
                }
            } else {
                m_decoder->enqueue(m_pass, self, cross, encoderOut);
            }
            m_decoder->readLogits(m_pass.beams, logits);
            m_backend->synchronize();
        } catch (const std::exception& e) {
            // A half-written cache must not be trusted by the next call.
            resetDecoder();
            // Growing the decoder's workspace for a longer pass is the allocation that can fail here.
            return makeError(std::string(dynamic_cast<const std::bad_alloc*>(&e) ? "decoder ran out of memory: "
                                                                                 : "decoder failed: ") +
                                 describe(e) +
                                 (inGraph ? " (while recording or replaying the decoder step; without step graphs "
                                            "(--no-step-graphs) it runs op by op)"
                                          : ""),
                             backendErrorKind(e));
        }
        updateWorkspaceBytes();
        if (selfOn) {
            for (int b = 0; b < beams; ++b) {
                const auto& tokens = beamTokens[static_cast<size_t>(b)];
                m_self.setLength(b, static_cast<int>(tokens.size()));
                m_beamTokens[static_cast<size_t>(b)] = tokens;
            }
        }
        std::lock_guard lock(m_timingsMutex);
        m_timings.decodeMs += msSince(start);
        m_timings.decodeCalls += 1;
        m_timings.tokensDecoded += m_pass.rows();
        m_timings.stepRecordings += recorded ? 1 : 0;
        m_timings.stepReplays += replayed ? 1 : 0;
        if (recorded) m_timings.stepOperations = operations;
        return {};
    }

    Result<ForcedPass> forcedPass(const ForcedPassRequest& request) override {
        if (!m_encoded) return makeError("forced pass: no audio window encoded yet (call encode() first)");
        const int n = static_cast<int>(request.tokens.size());
        const int positions = m_decoder->audioContext();
        if (n < 1 || n > m_config.nTextCtx) {
            return makeError("forced pass: " + std::to_string(n) + " tokens, expected 1.." + std::to_string(m_config.nTextCtx));
        }
        for (int token : request.tokens) {
            if (token < 0 || token >= m_config.nVocab) {
                return makeError("forced pass: token id " + std::to_string(token) + " outside the vocabulary");
            }
        }
        for (auto [layer, head] : request.heads) {
            if (layer < 0 || layer >= m_config.nTextLayer || head < 0 || head >= m_config.nTextHead) {
                return makeError("forced pass: alignment head (" + std::to_string(layer) + ", " + std::to_string(head) +
                                 ") is not one of this model's " + std::to_string(m_config.nTextLayer) + " layers x " +
                                 std::to_string(m_config.nTextHead) + " heads");
            }
        }
        if (request.frames < 1 || request.frames > positions) {
            return makeError("forced pass: " + std::to_string(request.frames) + " frames, expected 1.." +
                             std::to_string(positions));
        }
        if (request.firstRow < 0 || request.probabilityRows < 0 || request.firstRow + request.probabilityRows > n - 1 ||
            request.textVocabulary < 1 || request.textVocabulary > m_config.nVocab) {
            return makeError("forced pass: probability rows or text vocabulary out of range");
        }
        const bool crossOn = m_crossOn.load();
        if (crossOn && !m_crossValid) {
            if (auto ok = fillCrossCache(); !ok) return ok.error();
        }
        const auto start = Clock::now();
        m_pass.clear();
        for (int p = 0; p < n; ++p) {
            m_pass.tokens.push_back(request.tokens[static_cast<size_t>(p)]);
            m_pass.positions.push_back(p);
        }
        m_pass.selfBatches.push_back({0, n, 0, n});
        m_pass.beams = std::max(1, request.probabilityRows);
        m_pass.exactLogits = true;  // the given tokens' probabilities, whatever their rank
        m_pass.lastRows.push_back({static_cast<size_t>(request.probabilityRows > 0 ? request.firstRow : n - 1), 0,
                                   static_cast<size_t>(m_pass.beams)});

        ForcedPass out;
        out.rows = n;
        out.frames = request.frames;
        const size_t d = static_cast<size_t>(m_config.nTextState), rows = static_cast<size_t>(n);
        const size_t frames = static_cast<size_t>(request.frames);
        const size_t headDim = d / static_cast<size_t>(m_config.nTextHead);
        const float scale = 1.0f / std::sqrt(static_cast<float>(headDim));
        out.scores.assign(request.heads.size() * rows * frames, 0.0f);
        std::vector<float> queries, keys, logits;
        // The scores of the heads of one layer, from that layer's queries and keys.
        const CrossAttentionTap tap = [&](int layer, BufferView q, BufferView k) {
            bool wanted = false;
            for (auto [l, h] : request.heads) wanted = wanted || l == layer;
            if (!wanted) return;
            queries.resize(rows * d);
            keys.resize(frames * d);
            m_backend->download(q.slice(0, rows * d), queries.data(), rows * d);
            m_backend->download(k.slice(0, frames * d), keys.data(), frames * d);
            for (size_t i = 0; i < request.heads.size(); ++i) {
                if (request.heads[i].first != layer) continue;
                const size_t column = static_cast<size_t>(request.heads[i].second) * headDim;
                float* dst = out.scores.data() + i * rows * frames;
                for (size_t r = 0; r < rows; ++r) {
                    const float* qr = queries.data() + r * d + column;
                    for (size_t f = 0; f < frames; ++f) {
                        const float* kf = keys.data() + f * d + column;
                        float dot = 0.0f;
                        for (size_t c = 0; c < headDim; ++c) dot += qr[c] * scale * kf[c];
                        dst[r * frames + f] = dot;
                    }
                }
            }
        };
        try {
            m_decoder->prepare(m_pass, crossOn);
            m_decoder->enqueue(m_pass, nullptr, crossOn ? &m_cross : nullptr, BufferView(m_encoderOut.get()), tap);
            m_decoder->readLogits(m_pass.beams, logits);
            m_backend->synchronize();
        } catch (const std::exception& e) {
            return makeError(std::string(dynamic_cast<const std::bad_alloc*>(&e) ? "forced pass ran out of memory: "
                                                                                 : "forced pass failed: ") +
                                 describe(e),
                             backendErrorKind(e));
        }
        updateWorkspaceBytes();
        const size_t vocab = static_cast<size_t>(m_config.nVocab), text = static_cast<size_t>(request.textVocabulary);
        for (int i = 0; i < request.probabilityRows; ++i) {
            const float* row = logits.data() + static_cast<size_t>(i) * vocab;
            const int next = request.tokens[static_cast<size_t>(request.firstRow + i + 1)];
            const float top = *std::max_element(row, row + text);
            double sum = 0.0;
            for (size_t v = 0; v < text; ++v) sum += std::exp(static_cast<double>(row[v] - top));
            out.nextTokenProbabilities.push_back(
                static_cast<size_t>(next) < text ? static_cast<float>(std::exp(static_cast<double>(row[next] - top)) / sum)
                                                 : 0.0f);
        }
        std::lock_guard lock(m_timingsMutex);
        m_timings.decodeMs += msSince(start);
        m_timings.tokensDecoded += n;
        return out;
    }

    void reorderBeams(const std::vector<int>& sourceBeam) override {
        const int beams = m_options.maxBeams;
        if (sourceBeam.empty() || static_cast<int>(sourceBeam.size()) > beams ||
            std::any_of(sourceBeam.begin(), sourceBeam.end(), [&](int s) { return s < 0 || s >= beams; })) {
            m_pendingError = makeError("reorderBeams: invalid source beams for a session of " + std::to_string(beams) +
                                       " beams");
            return;
        }
        if (auto ok = m_self.reorder(*m_backend, sourceBeam); !ok) {
            m_pendingError = ok.error();
            resetDecoder();
            return;
        }
        std::vector<std::vector<int>> reordered(m_beamTokens.size());
        for (size_t b = 0; b < sourceBeam.size(); ++b) reordered[b] = m_beamTokens[static_cast<size_t>(sourceBeam[b])];
        for (size_t b = 0; b < reordered.size(); ++b) {
            if (m_self.length(static_cast<int>(b)) == 0) reordered[b].clear();
        }
        m_beamTokens = std::move(reordered);
    }

    void resetDecoder() override {
        m_self.clear();
        for (auto& tokens : m_beamTokens) tokens.clear();
    }

    void setSelfAttentionCache(bool enabled) override {
        m_selfOn.store(enabled);
        if (!enabled) {
            releaseCache(m_self);
            for (auto& tokens : m_beamTokens) tokens.clear();
        } else {
            // Allocate now so the accounting shows it; a failure is reported by the next decode().
            (void)allocateCache(m_self);
        }
    }

    void setCrossAttentionCache(bool enabled) override {
        m_crossOn.store(enabled);
        if (!enabled) {
            releaseCache(m_cross);
            m_crossValid = false;
        } else {
            m_decoder->releaseCrossScratch();
            updateWorkspaceBytes();
            if (m_encoded) (void)fillCrossCache();  // a failure is reported by the next decode()
        }
    }

    bool selfAttentionCache() const override { return m_selfOn.load(); }

    void setStepGraphs(bool enabled) override {
        if (!enabled) m_recordings = StepRecordings{};  // frees the recorded work (CUDA graphs)
        m_stepGraphsOn.store(enabled);
    }

    bool stepGraphs() const override { return m_stepGraphsOn.load(); }
    bool crossAttentionCache() const override { return m_crossOn.load(); }

    KvCacheStats cacheStats() const override {
        KvCacheStats stats;
        const size_t selfLayer = m_self.layerAllocatedBytes(), selfUsed = m_self.layerInUseBytes();
        const size_t crossLayer = m_cross.layerAllocatedBytes(), crossUsed = m_cross.layerInUseBytes();
        stats.layers.assign(static_cast<size_t>(m_config.nTextLayer), {selfLayer, selfUsed, crossLayer, crossUsed});
        const size_t layers = static_cast<size_t>(m_config.nTextLayer);
        stats.selfAllocated = selfLayer * layers;
        stats.selfInUse = selfUsed * layers;
        stats.crossAllocated = crossLayer * layers;
        stats.crossInUse = crossUsed * layers;
        stats.positions = m_self.longestBeam();
        stats.beams = m_self.beamsInUse();
        stats.workspaceBytes = m_workspaceBytes.load(std::memory_order_relaxed);
        stats.device = m_backend->memoryInfo();
        return stats;
    }

    SessionTimings timings() const override {
        std::lock_guard lock(m_timingsMutex);
        return m_timings;
    }

    int audioContext() const override { return m_decoder->audioContext(); }

    std::vector<float> encoderOutput() const override {
        if (!m_encoded) return {};
        const size_t count = static_cast<size_t>(m_decoder->audioContext()) * static_cast<size_t>(m_config.nAudioState);
        std::vector<float> out(count);
        m_backend->download(BufferView(m_encoderOut.get()).slice(0, count), out.data(), out.size());
        return out;
    }

    const WhisperModel& model() const override { return m_weights->model(); }

private:
    void updateWorkspaceBytes() {
        m_workspaceBytes.store(m_encoder->workspaceBytes() + m_decoder->workspaceBytes() + m_mel->bytes() +
                                   m_encoderOut->bytes(),
                               std::memory_order_relaxed);
    }

    // Cache (de)allocation bumps the epoch that invalidates recorded steps.
    Result<void> allocateCache(KvCache& cache) {
        const bool had = cache.allocated();
        auto ok = cache.allocate(*m_backend);
        if (ok && !had) m_cacheEpoch.fetch_add(1);
        return ok;
    }

    void releaseCache(KvCache& cache) {
        if (cache.allocated()) m_cacheEpoch.fetch_add(1);
        cache.release();
    }

    Result<void> fillCrossCache() {
        if (auto ok = allocateCache(m_cross); !ok) return ok;
        try {
            m_decoder->projectCross(BufferView(m_encoderOut.get()), m_cross);
        } catch (const std::exception& e) {
            m_cross.clear();
            return backendError("cross-attention projection failed: ", e);
        }
        m_crossValid = true;
        return {};
    }

    // Lays out the pass: each beam runs from its first token not already in the self cache.
    void buildPass(const std::vector<std::vector<int>>& beamTokens, bool selfOn) {
        m_pass.clear();
        m_pass.beams = static_cast<int>(beamTokens.size());
        for (int b = 0; b < m_pass.beams; ++b) {
            const auto& tokens = beamTokens[static_cast<size_t>(b)];
            const int n = static_cast<int>(tokens.size());
            int first = 0;
            if (selfOn) {
                const auto& cached = m_beamTokens[static_cast<size_t>(b)];
                const int limit = std::min({n, m_self.length(b), static_cast<int>(cached.size())});
                while (first < limit && tokens[static_cast<size_t>(first)] == cached[static_cast<size_t>(first)]) ++first;
                first = std::min(first, n - 1);  // the last token always runs: its logits are the output
            }
            const int row = m_pass.rows();
            for (int p = first; p < n; ++p) {
                m_pass.tokens.push_back(tokens[static_cast<size_t>(p)]);
                m_pass.positions.push_back(p);
            }
            const size_t keyRow = selfOn ? m_self.row(b, 0) : static_cast<size_t>(row);
            m_pass.selfBatches.push_back({row, n - first, keyRow, n});
            if (selfOn) {
                m_pass.cacheWrites.push_back({static_cast<size_t>(row), m_self.row(b, first), static_cast<size_t>(n - first)});
            }
            m_pass.lastRows.push_back({static_cast<size_t>(row + n - first - 1), static_cast<size_t>(b), 1});
        }
        // A step: each beam adds one token at its cursor (the steady state of greedy and beam
        // search); the session has checked that every position is below n_text_ctx.
        m_pass.step = selfOn && m_pass.rows() == m_pass.beams;
    }

    std::shared_ptr<const DeviceWeights> m_weights;  // shared, read-only; keeps model and backend alive
    std::shared_ptr<Backend> m_backend;              // = m_weights->sharedBackend()
    SessionOptions m_options;
    const WhisperConfig& m_config;
    std::unique_ptr<WhisperEncoder> m_encoder;
    std::unique_ptr<WhisperDecoder> m_decoder;
    std::unique_ptr<DeviceBuffer> m_mel;         // [2·n_audio_ctx][n_mels]
    std::unique_ptr<DeviceBuffer> m_encoderOut;  // [n_audio_ctx][d], kept for the window
    std::vector<float> m_melHost;                // transposition staging
    KvCache m_self;                              // K,V: [layer][beam][n_text_ctx][d]
    KvCache m_cross;                             // K,V: [layer][n_audio_ctx][d], shared by all beams
    std::vector<std::vector<int>> m_beamTokens;  // [beam] tokens whose K/V the self cache holds
    DecoderPass m_pass;                          // reused between calls (no allocation once warm)
    StepRecordings m_recordings;                 // recorded decoder steps (stepGraphs)
    std::atomic<uint64_t> m_cacheEpoch{0};       // bumped when a cache is allocated or freed
    std::atomic<bool> m_selfOn{true};
    std::atomic<bool> m_stepGraphsOn{true};  // = m_options.stepGraphs until setStepGraphs()
    std::atomic<bool> m_crossOn{true};
    bool m_encoded = false;
    bool m_crossValid = false;                   // cross cache holds the current window
    std::optional<Error> m_pendingError;         // from reorderBeams, reported by the next decode()
    std::atomic<size_t> m_workspaceBytes{0};     // for cacheStats() from any thread
    mutable std::mutex m_timingsMutex;
    SessionTimings m_timings;
};

} // namespace

Result<std::unique_ptr<InferenceSession>> InferenceSession::create(std::shared_ptr<const DeviceWeights> weights,
                                                                   SessionOptions options) {
    if (!weights) return makeError("cannot create a session without weights");
    if (options.maxBeams < 1 || options.maxBeams > 64) {
        return makeError("maxBeams is " + std::to_string(options.maxBeams) + ", expected 1..64");
    }
    // The backend's thread count is its owner's (Engine, EngineHost): a session never changes
    // what the other sessions of its backend run with.
    auto session = std::make_unique<WhisperSession>(std::move(weights), options);
    if (auto ok = session->initialise(); !ok) return ok.error();
    return std::unique_ptr<InferenceSession>(std::move(session));
}

Result<std::unique_ptr<InferenceSession>> InferenceSession::create(std::shared_ptr<const WhisperModel> model,
                                                                   std::shared_ptr<Backend> backend,
                                                                   SessionOptions options) {
    if (!model) return makeError("cannot create a session without a model");
    if (!backend) return makeError("cannot create a session without a backend");
    // Checked before the upload, which is the slow part.
    if (options.maxBeams < 1 || options.maxBeams > 64) {
        return makeError("maxBeams is " + std::to_string(options.maxBeams) + ", expected 1..64");
    }
    // Weights of this model already on this backend are shared, not uploaded again.
    auto weights = DeviceWeights::shared(std::move(model), std::move(backend));
    if (!weights) return weights.error();
    return create(std::move(weights).value(), options);
}

} // namespace hearsay
