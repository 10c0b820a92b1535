// Engine: the one place that assembles a model, its tokenizer, a backend and the device copy of
// the weights, once per (model, backend), and hands out sessions over them. Sessions are cheap
// (caches and work buffers only) and share the read-only weights, as whisper.cpp splits
// whisper_model from whisper_state and CTranslate2 shares a const model between workers. The CLI,
// the bench, the GUI's file transcription and streaming all get their sessions here.
#pragma once

#include "core/backend/backend.h"
#include "core/engine/controlled_session.h"
#include "core/engine/session_controls.h"
#include "core/model/whisper_model.h"
#include "core/nn/device_weights.h"
#include "core/nn/inference_session.h"
#include "core/text/tokenizer.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>

namespace hearsay {

struct EngineOptions {
    BackendKind backend = BackendKind::Auto;  // auto: CUDA when a GPU can be used, else the CPU
    BackendOptions backendOptions;            // CPU threads, GPU index, precision (CUDA)
};

// A handle: copies share the same model, tokenizer, backend and weights (all immutable but the
// backend). Sessions keep what they use alive, so they may outlive every Engine copy. One thread
// at a time uses the sessions of one backend (they share its stream and scratch): the worker
// thread that owns the engine.
class Engine {
public:
    // Loads the model file (a Hugging Face checkpoint directory or a whisper.cpp ggml .bin), its
    // tokenizer, starts the backend and uploads the weights. Errors say what failed, with a kind:
    // BadInput (the file, the model, its vocabulary), Device (the backend cannot start),
    // OutOfMemory (the weights do not fit).
    static Result<Engine> load(const std::filesystem::path& modelPath, const EngineOptions& options = {});
    // From a model already loaded (a backend or precision change keeps model and tokenizer): starts
    // the backend and uploads. A null tokenizer is made from the model's vocabulary.
    static Result<Engine> create(std::shared_ptr<const WhisperModel> model, std::shared_ptr<const Tokenizer> tokenizer,
                                 const EngineOptions& options);
    // The same on a backend the caller made (or shares with another engine).
    static Result<Engine> create(std::shared_ptr<const WhisperModel> model, std::shared_ptr<const Tokenizer> tokenizer,
                                 std::shared_ptr<Backend> backend);

    // An engine over weights already on a backend (another engine's, or those sessions still
    // hold): nothing is uploaded. A null tokenizer is made from the model's vocabulary.
    static Result<Engine> over(std::shared_ptr<const DeviceWeights> weights, std::shared_ptr<const Tokenizer> tokenizer);

    // A session over this engine's weights: allocates its caches (for options.maxBeams beams) and
    // work buffers, uploads nothing. `controls`: shared with the threads that steer the session;
    // when given, the switches they ask for at this moment replace options' (so a request made
    // just before cannot be lost, and no cache is allocated only to be freed); when null, new
    // controls holding options' switches (session->controls()). Errors: OutOfMemory when the
    // caches do not fit, BadInput for impossible options.
    Result<std::unique_ptr<ControlledSession>> createSession(SessionOptions options,
                                                             std::shared_ptr<SessionControls> controls = nullptr) const;

    const WhisperModel& model() const { return m_weights->model(); }
    const std::shared_ptr<const WhisperModel>& sharedModel() const { return m_weights->sharedModel(); }
    const Tokenizer& tokenizer() const { return *m_tokenizer; }
    const std::shared_ptr<const Tokenizer>& sharedTokenizer() const { return m_tokenizer; }
    Backend& backend() const { return m_weights->backend(); }
    const std::shared_ptr<Backend>& sharedBackend() const { return m_weights->sharedBackend(); }
    // The weights on the backend (buffers(), bytes()).
    const DeviceWeights& weights() const { return *m_weights; }
    const std::shared_ptr<const DeviceWeights>& sharedWeights() const { return m_weights; }

private:
    Engine(std::shared_ptr<const Tokenizer> tokenizer, std::shared_ptr<const DeviceWeights> weights)
        : m_tokenizer(std::move(tokenizer)), m_weights(std::move(weights)) {}

    std::shared_ptr<const Tokenizer> m_tokenizer;
    std::shared_ptr<const DeviceWeights> m_weights;  // holds the model and the backend
};

} // namespace hearsay
