// The transaction behind EngineHost::apply (see engine_host.h).
#include "core/engine/engine_host.h"

#include "core/engine/backend_factory.h"
#include "core/model/model_tokenizer.h"
#include "core/model/whisper_model.h"

#include <utility>

namespace hearsay {

bool EngineHost::newModel(const EngineConfig& config) const {
    return !m_engine || config.reloadModel || config.modelPath != m_config.modelPath;
}

bool EngineHost::newBackend(const EngineConfig& config) const {
    return !m_engine || config.backend != m_config.backend || config.precision != m_config.precision;
}

bool EngineHost::needsUpload(const EngineConfig& config) const { return newModel(config) || newBackend(config); }

Result<void> EngineHost::apply(const EngineConfig& config) {
    if (config.threads < 0) return makeError("the thread count must be 0 (all cores) or positive");
    const bool newModel = this->newModel(config);
    const bool newBackend = this->newBackend(config);

    if (!newModel && !newBackend) {
        // Threads apply to the backend in place; sessions read them at their next op.
        if (config.threads != m_config.threads) m_engine->backend().setThreads(config.threads);
        m_config.threads = config.threads;
        return {};
    }

    // 1. The model and its tokenizer, read beside the current ones (host memory, mapped): a file
    // that cannot be used fails before a backend is touched.
    std::shared_ptr<const WhisperModel> model;
    std::shared_ptr<const Tokenizer> tokenizer;
    if (newModel) {
        if (config.modelPath.empty()) return makeError("no model file is given");
        auto loaded = WhisperModel::load(config.modelPath);
        if (!loaded) return loaded.error();
        auto made = tokenizerForModel(*loaded.value());
        if (!made) return made.error();  // names the model and what is missing
        model = std::move(loaded).value();
        tokenizer = std::make_shared<const Tokenizer>(std::move(made).value());
    } else {
        model = m_engine->sharedModel();
        tokenizer = m_engine->sharedTokenizer();
    }

    // 2. The backend. A backend that cannot start leaves everything as it was.
    std::shared_ptr<Backend> backend;
    if (newBackend) {
        m_attempted = resolveBackendKind(config.backend);
        auto created = createBackend(config.backend, BackendOptions{config.threads, 0, config.precision});
        if (!created) return created.error();
        backend = std::move(created).value();
    } else {
        backend = m_engine->sharedBackend();
        m_attempted = backend->kind();
    }

    // 3. Release, then upload. What the previous state needs to come back stays in host memory
    // (model, tokenizer, backend); its device weights go now, unless sessions still hold them.
    std::weak_ptr<const DeviceWeights> previousWeights;
    std::shared_ptr<const WhisperModel> previousModel;
    std::shared_ptr<const Tokenizer> previousTokenizer;
    std::shared_ptr<Backend> previousBackend;
    if (m_engine) {
        previousWeights = m_engine->sharedWeights();
        previousModel = m_engine->sharedModel();
        previousTokenizer = m_engine->sharedTokenizer();
        previousBackend = m_engine->sharedBackend();
        m_engine.reset();
    }
    auto engine = Engine::create(model, tokenizer, backend);
    if (!engine) {
        const Error failed = engine.error();
        if (!previousModel) return failed;  // there was nothing before
        // Back to the previous state: the weights sessions still hold, else a new upload of the
        // previous model to the previous backend (it fitted before and the new weights are gone).
        if (auto alive = previousWeights.lock()) {
            auto back = Engine::over(std::move(alive), previousTokenizer);
            if (back) m_engine = std::move(back).value();
            return failed;
        }
        auto again = Engine::create(previousModel, previousTokenizer, previousBackend);
        if (!again) {
            m_config = {};
            return Error{failed.message + "; the previous model could not be uploaded again either (" +
                             again.message() + "): no model is loaded",
                         failed.kind};
        }
        m_engine = std::move(again).value();
        return failed;
    }
    m_engine = std::move(engine).value();
    m_attempted = backend->kind();
    // 4. A new backend was started with the thread count; the kept one gets it now.
    if (!newBackend && config.threads != m_config.threads) backend->setThreads(config.threads);
    m_config = config;
    m_config.reloadModel = false;
    return {};
}

Result<std::unique_ptr<ControlledSession>> EngineHost::createSession(SessionOptions options,
                                                                     std::shared_ptr<SessionControls> controls) const {
    if (!m_engine) return makeError("no model is loaded");
    return m_engine->createSession(std::move(options), std::move(controls));
}

} // namespace hearsay
