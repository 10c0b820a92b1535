// Everything that changes while one audio stream is transcribed: the encoder output of the
// current window, the cross-attention K/V cache (computed once per window, shared by all
// beams) and the self-attention K/V cache (preallocated, written at a cursor per beam).
// The decoding policies in core/decoding talk to the network only through this class.
#pragma once

#include "core/backend/backend.h"
#include "core/frontend/log_mel.h"
#include "core/model/whisper_model.h"
#include "core/util/result.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hearsay {

class Backend;
class DeviceWeights;

struct SessionOptions {
    int maxBeams = 5;              // self cache rows are allocated for this many beams
    bool selfAttentionCache = true;  // off: each step re-runs the decoder over all tokens; the
                                     // self cache is freed (allocated 0 bytes)
    bool crossAttentionCache = true; // off: each step re-projects the encoder output (kept) layer
                                     // by layer; the cross cache is freed (allocated 0 bytes)
    // The logits decode() returns exactly: those of every special token, and of every text token
    // that could be among this many largest text logits (the rest may be approximate: the CPU's
    // 8-bit sketch of the table, within its bound; q16_split.h). It must exceed the text tokens
    // the filters remove at one step plus what a step picks of each sequence (2 x beams): the
    // reference's non-speech list holds 82 to 90 of them.
    int exactTextLogits = 256;     // 0: every logit exact
    bool stepGraphs = true;        // record the decoder step once per shape (beams, cache
                                   // switches, buffers) and replay it per token (a CUDA graph
                                   // on the GPU); needs the self cache; off: every op eagerly
};

// Exact byte accounting, readable from any thread at any time.
struct KvCacheStats {
    struct Layer {
        size_t selfAllocated = 0;  // K + V bytes allocated for this decoder layer's self cache
        size_t selfInUse = 0;      // K + V bytes holding valid positions (all beams)
        size_t crossAllocated = 0; // K + V bytes of this layer's cross cache
        size_t crossInUse = 0;     // bytes holding the current window's K/V
    };
    std::vector<Layer> layers;
    size_t selfAllocated = 0, selfInUse = 0, crossAllocated = 0, crossInUse = 0;
    int positions = 0;             // positions cached in the longest beam
    int beams = 0;                 // beams holding positions
    // Not cache: encoder and decoder activations, the mel and the encoder output. With the self
    // cache off, a pass's K/V live in the decoder's row buffers; with the cross cache off, one
    // layer's re-projected K/V (2 · n_audio_ctx · d floats) are here.
    size_t workspaceBytes = 0;
    // The memory the caches live in (GPU or system RAM), total and free when this was read.
    DeviceMemory device;
};

// Per-call timings accumulated by the session (for statistics and the benchmark).
struct SessionTimings {
    double encoderMs = 0.0;       // encoder + cross K/V projection, last window
    double decodeMs = 0.0;        // sum over decode() calls since the last encode()
    int decodeCalls = 0;
    int tokensDecoded = 0;        // positions run through the decoder (prompt included)
    int stepRecordings = 0;       // decoder steps recorded (once per shape; SessionOptions::stepGraphs)
    int stepReplays = 0;          // decode() calls that replayed a recorded step
    size_t stepOperations = 0;    // operations in the latest recording (CUDA: graph nodes, i.e.
                                  // kernel launches and copies per token; CPU: tape entries)
};

// What a forced decoder pass over a known token sequence saw (word timestamps): the
// cross-attention scores of the requested heads and the probabilities of the given tokens.
struct ForcedPass {
    int rows = 0;     // tokens in the pass
    int frames = 0;   // encoder positions kept per row
    // [heads][rows][frames]: scale · q·k of each requested head (before the softmax), over
    // the first `frames` encoder positions, heads in the order they were asked for.
    std::vector<float> scores;
    // Entry i: the probability the logits of row firstRow + i give to tokens[firstRow + i + 1],
    // under a softmax over the ids below `textVocabulary` alone.
    std::vector<float> nextTokenProbabilities;
};

struct ForcedPassRequest {
    std::vector<int> tokens;                       // the whole sequence, start-of-transcript first
    std::vector<std::pair<int, int>> heads;        // (decoder layer, head)
    int frames = 0;                                // encoder positions to keep (≤ audioContext())
    int firstRow = 0;                              // first row whose next-token probability is wanted
    int probabilityRows = 0;                       // how many such rows
    int textVocabulary = 0;                        // softmax over ids [0, textVocabulary)
};

class InferenceSession {
public:
    // A session over weights already on a backend (shared with other sessions, never copied):
    // allocates the caches for `options.maxBeams` beams and the work buffers, nothing else.
    // Fails with a clear message (kind OutOfMemory) when the memory cannot be had. Sessions of
    // one backend must be used from one thread at a time (they share its stream and scratch).
    static Result<std::unique_ptr<InferenceSession>> create(std::shared_ptr<const DeviceWeights> weights,
                                                            SessionOptions options);
    // From a model and a backend (tests, a single transcription): the weights of `model` already
    // alive on `backend` are shared (DeviceWeights::shared), else uploaded once and shared with
    // the next session made this way; then as above. The CLI, the bench and the GUI get sessions
    // from an Engine or an EngineHost (core/engine).
    static Result<std::unique_ptr<InferenceSession>> create(std::shared_ptr<const WhisperModel> model,
                                                            std::shared_ptr<Backend> backend,
                                                            SessionOptions options);
    virtual ~InferenceSession() = default;

    // Runs the encoder on one window (a [n_mels][3000] log-mel) and, with the cross cache
    // on, projects the cross-attention K/V once. Resets the decoder state.
    Result<void> encode(const LogMel& mel) { return encode(mel, 0); }
    // The same with a reduced audio context (whisper.cpp's audio_ctx): only the first
    // 2·audioContext mel frames are encoded, into audioContext positions, and the decoder attends
    // to those alone (cross K/V of audioContext rows). Much cheaper for a short window; the model
    // was trained on all 1500 positions, so the text may differ. 0 (or n_audio_ctx): all of them.
    virtual Result<void> encode(const LogMel& mel, int audioContext) = 0;

    // Logits of the last position of each beam: beamTokens[b] is beam b's whole token
    // sequence (start-of-transcript sequence included). With the self cache on, only the
    // tokens after the cached prefix are run; a sequence that no longer extends the cached
    // prefix is re-run from its first differing token. Sequences longer than n_text_ctx are
    // an error. logits is resized to beams × n_vocab.
    virtual Result<void> decode(const std::vector<std::vector<int>>& beamTokens, std::vector<float>& logits) = 0;

    // One pass over request.tokens as a whole (no sampling, the self cache neither read nor
    // written: the decoder state of beams is unchanged), cross cache on or off alike. Errors:
    // nothing encoded, a bad head, frames or row range, a sequence outside the text context.
    virtual Result<ForcedPass> forcedPass(const ForcedPassRequest& request) = 0;

    // After a beam-search step: new beam b continues old beam sourceBeam[b] (cache rows are
    // copied, not recomputed).
    virtual void reorderBeams(const std::vector<int>& sourceBeam) = 0;

    // Forgets decoded positions (the cross cache of the current window stays valid).
    virtual void resetDecoder() = 0;

    // Switches, settable between decode() calls; both on or off give identical tokens.
    virtual void setSelfAttentionCache(bool enabled) = 0;
    virtual void setCrossAttentionCache(bool enabled) = 0;
    virtual bool selfAttentionCache() const = 0;
    virtual bool crossAttentionCache() const = 0;
    // Step graphs (SessionOptions::stepGraphs), settable between decode() calls like the cache
    // switches: off drops the recordings and runs every step eagerly; on records again (after
    // one eager step of each shape). Identical tokens either way.
    virtual void setStepGraphs(bool enabled) = 0;
    virtual bool stepGraphs() const = 0;

    virtual KvCacheStats cacheStats() const = 0;
    virtual SessionTimings timings() const = 0;

    // Positions the last window was encoded into (n_audio_ctx unless reduced).
    virtual int audioContext() const = 0;

    // Encoder output of the last window, [audioContext()][d] (for tests against the reference).
    virtual std::vector<float> encoderOutput() const = 0;

    virtual const WhisperModel& model() const = 0;
};

} // namespace hearsay
