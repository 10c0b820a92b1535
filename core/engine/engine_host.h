// EngineHost: the one owner of the current model, tokenizer, backend, precision, thread count and
// device weights (an Engine), changed as one transaction. The GUI's worker keeps one and asks it
// for sessions; nothing else assembles those parts for it. Qt-free.
#pragma once

#include "core/backend/backend.h"
#include "core/engine/engine.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>
#include <optional>

namespace hearsay {

// What the host should hold.
struct EngineConfig {
    std::filesystem::path modelPath;          // a model directory or a ggml .bin
    BackendKind backend = BackendKind::Auto;  // as asked for (auto is compared as auto)
    Precision precision = Precision::Fp16;    // CUDA weights and GEMMs; the CPU computes in fp32
    int threads = 0;                          // the backend's CPU threads, 0 = all cores
    bool reloadModel = false;                 // read the model file again although the path is the same
};

class EngineHost {
public:
    // Makes whatever differs between the current state and `config` as one transaction:
    //   1. the model file and its tokenizer are read (when the path changed or reloadModel);
    //   2. a backend is started (when the kind or the precision changed);
    //   3. when either changed, the current weights are released and the new ones uploaded;
    //   4. the thread count is set on the backend (the host alone sets it; sessions never do).
    // A failure in 1 or 2 changes nothing. A failed upload in 3 puts the previous weights back:
    // they are still alive when sessions made before hold them (nothing is uploaded then), else
    // the previous model is uploaded again to the previous backend (it fitted before, the new
    // weights are gone). Only when that re-upload fails as well is the host left empty
    // (loaded() false); the error then says both. The error names what failed and keeps its
    // kind: BadInput (model file, vocabulary, threads), Device (backend), OutOfMemory (weights).
    //
    // Memory: the previous weights are released before the upload, so a switch needs
    // max(old, new) device bytes, not old + new. That holds only when the caller has dropped the
    // sessions it made (they hold the weights and their caches): see needsUpload().
    Result<void> apply(const EngineConfig& config);

    // Whether apply(config) would upload weights (a new model or backend): the caller's sessions
    // should be dropped before it, so that their caches and the old weights go first.
    bool needsUpload(const EngineConfig& config) const;

    // A session over the current weights (Engine::createSession): caches and work buffers only.
    // An error when nothing is loaded.
    Result<std::unique_ptr<ControlledSession>> createSession(SessionOptions options,
                                                             std::shared_ptr<SessionControls> controls = nullptr) const;

    bool loaded() const { return m_engine.has_value(); }
    // The current engine (a handle sharing the weights); loaded() must be true.
    const Engine& engine() const { return *m_engine; }
    // The configuration the current state was made for (modelPath empty before the first apply).
    const EngineConfig& config() const { return m_config; }
    // The kind of the backend the latest apply() used or tried to start (Cpu for an auto that
    // found no GPU): tells whether a Device or OutOfMemory failure was a GPU's.
    BackendKind attemptedBackend() const { return m_attempted; }

private:
    bool newModel(const EngineConfig& config) const;    // the file is to be read (again)
    bool newBackend(const EngineConfig& config) const;  // a backend of another kind or precision
    std::optional<Engine> m_engine;  // model, tokenizer, backend and weights
    EngineConfig m_config;
    BackendKind m_attempted = BackendKind::Cpu;
};

} // namespace hearsay
