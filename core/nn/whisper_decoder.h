// Whisper's text decoder written against the Backend: token + positional embedding, pre-norm
// blocks (causal self-attention, cross-attention over the encoder output, MLP), final layer
// norm and logits through the tied token embedding. One pass runs the new rows of all beams.
// A pass is three parts: prepare() (host work: buffers, index uploads), enqueue() (backend ops
// only, so a decode step can be recorded and replayed) and readLogits().
#pragma once

#include "core/backend/backend.h"
#include "core/nn/kv_cache.h"
#include "core/model/whisper_config.h"
#include "core/nn/network_weights.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace hearsay {

// Called by a pass (never a recorded one) once a layer's cross-attention inputs are ready:
// queries [rows][d] (before the 1/sqrt(head dim) scale) and keys [audio context][d]. Word
// timestamps read the attention of the alignment heads through it.
using CrossAttentionTap = std::function<void(int layer, BufferView queries, BufferView keys)>;

// The rows one decoder pass runs: for each beam, its tokens not yet in the self cache (or
// all of them with the cache off), concatenated beam after beam.
struct DecoderPass {
    std::vector<int> tokens;                  // [rows]
    std::vector<int> positions;               // [rows]
    std::vector<AttentionBatch> selfBatches;  // per beam: its query rows, and its key rows
                                              // (in the self cache, or in this pass's rows)
    std::vector<RowCopy> cacheWrites;         // self cache on: pass rows -> cache rows
    std::vector<RowCopy> lastRows;            // per beam: its last pass row -> logits row
    int beams = 0;                            // logits rows (a forced pass may ask for more
                                              // rows than the session has beams)
    // Every logit exact (a forced pass's token probabilities); otherwise the logits of ordinary
    // text tokens out of reach of the largest may be approximate (WhisperDecoder's logitsReach).
    bool exactLogits = false;
    // A decode step: the self cache is on and every beam runs exactly one row (row b = beam b).
    // Its ops then take every per-step value (ids, positions, cache rows) from index buffers,
    // so they are the same for every step of the same beam count: recordable once, replayable.
    bool step = false;

    int rows() const { return static_cast<int>(tokens.size()); }
    void clear();
};

class WhisperDecoder {
public:
    // Allocates the per-beam output buffers (throws std::bad_alloc); row buffers grow on demand.
    // logitsReach: which logits a pass computes exactly (Backend::logits): the special tokens (from
    // exactFrom, the end-of-text token) and the text tokens that could be among the `top` largest
    // text logits of a row; the rest may be approximate (the CPU's sketch, within its bound).
    WhisperDecoder(const WhisperConfig& config, const NetworkWeights& weights, Backend& backend, int maxBeams,
                   LogitsReach logitsReach);

    // Grows the row workspace to hold `rows` rows (allocates only when it must grow).
    void reserve(int rows);

    // A pass is prepare(), enqueue(), readLogits().
    // Host side: grows the buffers the pass needs and uploads its token ids and positions (a
    // step: also each beam's cache rows). crossCacheOn false: allocates the K/V scratch.
    void prepare(const DecoderPass& pass, bool crossCacheOn);
    // The pass's ops, in order, with no allocation and no host copy (recordable when
    // pass.step). prepare() must have run for this pass. selfCache null: keys and values come
    // from this pass's own rows (the cache is off). crossCache null: the encoder output is
    // projected to K/V here, layer by layer (the cross cache is off).
    // tap (optional, not while recording): sees each layer's cross-attention queries and keys.
    void enqueue(const DecoderPass& pass, KvCache* selfCache, const KvCache* crossCache, BufferView encoderOut,
                 const CrossAttentionTap& tap = {});
    // Downloads the logits [beams][n_vocab] the last enqueue() computed.
    void readLogits(int beams, std::vector<float>& logits);

    // Bumped whenever a buffer the decoder's ops use is (re)allocated or freed: recorded
    // steps of an older epoch refer to memory that is gone.
    uint64_t bufferEpoch() const { return m_bufferEpoch; }

    // The encoder positions the cross-attention reads (n_audio_ctx, or fewer with a reduced
    // audio context): set before the window's projectCross() and passes. A change bumps the
    // buffer epoch, so recorded steps of the other length are not replayed.
    void setAudioContext(int positions);
    int audioContext() const { return m_audioContext; }

    // Fills the cross cache (all layers) from the encoder output [audioContext()][d].
    void projectCross(BufferView encoderOut, KvCache& cross);

    // Frees the K/V scratch used while the cross cache is off.
    void releaseCrossScratch();

    size_t workspaceBytes() const;

private:
    void projectCrossLayer(int layer, BufferView encoderOut, BufferView keys, BufferView values);

    const WhisperConfig& m_config;
    const NetworkWeights& m_weights;
    Backend& m_backend;
    int m_maxBeams;
    LogitsReach m_logitsReach;
    int m_rowCapacity = 0;
    uint64_t m_bufferEpoch = 0;
    int m_audioContext = 0;                   // encoder positions attended to (set in the constructor)
    std::vector<int32_t> m_indexHost;         // staging for the uploads of prepare()
    std::vector<RowCopy> m_stepWrites;        // a step's cache writes: pass row b -> (0 + offset)
    std::vector<AttentionBatch> m_stepBatches; // a step's self attention: row b, 1 key + offsets
    std::unique_ptr<DeviceBuffer> m_x;        // [rows][d] residual stream
    std::unique_ptr<DeviceBuffer> m_ln;       // [rows][d]
    std::unique_ptr<DeviceBuffer> m_q;        // [rows][d]
    std::unique_ptr<DeviceBuffer> m_k;        // [rows][d]
    std::unique_ptr<DeviceBuffer> m_v;        // [rows][d]
    std::unique_ptr<DeviceBuffer> m_attn;     // [rows][d]
    std::unique_ptr<DeviceBuffer> m_hidden;   // [rows][4d]
    std::unique_ptr<DeviceBuffer> m_scores;   // attention workspace
    std::unique_ptr<DeviceBuffer> m_last;     // [maxBeams][d] last row of each beam
    std::unique_ptr<DeviceBuffer> m_logits;   // [maxBeams][n_vocab]
    std::unique_ptr<DeviceBuffer> m_wideLast;   // [rows][d]: a pass with more logits rows than
    std::unique_ptr<DeviceBuffer> m_wideLogits; // beams (grown on demand, never in a recording)
    std::unique_ptr<DeviceBuffer> m_crossK;   // [n_audio_ctx][d], only while the cross cache is off
    std::unique_ptr<DeviceBuffer> m_crossV;   // [n_audio_ctx][d]
    std::unique_ptr<IndexBuffer> m_passIds;   // [2][rows]: token ids, then positions (any pass)
    std::unique_ptr<IndexBuffer> m_stepIds;   // [4][maxBeams]: a step's token ids, positions,
                                              // beams' first cache rows, cache rows written
};

} // namespace hearsay
