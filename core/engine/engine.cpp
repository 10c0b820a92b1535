// Assembly of model, tokenizer, backend and weights, and cheap sessions over them (see engine.h).
#include "core/engine/engine.h"

#include "core/engine/backend_factory.h"
#include "core/model/model_tokenizer.h"

#include <utility>

namespace hearsay {

Result<Engine> Engine::load(const std::filesystem::path& modelPath, const EngineOptions& options) {
    auto model = WhisperModel::load(modelPath);
    if (!model) return model.error();
    return create(std::move(model).value(), nullptr, options);
}

Result<Engine> Engine::create(std::shared_ptr<const WhisperModel> model, std::shared_ptr<const Tokenizer> tokenizer,
                              const EngineOptions& options) {
    if (!model) return makeError("cannot make an engine without a model");
    // The tokenizer before the backend: a model that cannot be used fails before a GPU is touched.
    if (!tokenizer) {
        auto made = tokenizerForModel(*model);
        if (!made) return made.error();  // names the model and what is missing
        tokenizer = std::make_shared<const Tokenizer>(std::move(made).value());
    }
    auto backend = createBackend(options.backend, options.backendOptions);
    if (!backend) return backend.error();
    return create(std::move(model), std::move(tokenizer), std::move(backend).value());
}

Result<Engine> Engine::create(std::shared_ptr<const WhisperModel> model, std::shared_ptr<const Tokenizer> tokenizer,
                              std::shared_ptr<Backend> backend) {
    if (!model) return makeError("cannot make an engine without a model");
    if (!backend) return makeError("cannot make an engine without a backend");
    if (!tokenizer) {
        auto made = tokenizerForModel(*model);
        if (!made) return made.error();
        tokenizer = std::make_shared<const Tokenizer>(std::move(made).value());
    }
    auto weights = DeviceWeights::upload(std::move(model), std::move(backend));
    if (!weights) return weights.error();
    return Engine(std::move(tokenizer), std::move(weights).value());
}

Result<Engine> Engine::over(std::shared_ptr<const DeviceWeights> weights, std::shared_ptr<const Tokenizer> tokenizer) {
    if (!weights) return makeError("cannot make an engine without weights");
    if (!tokenizer) {
        auto made = tokenizerForModel(weights->model());
        if (!made) return made.error();
        tokenizer = std::make_shared<const Tokenizer>(std::move(made).value());
    }
    return Engine(std::move(tokenizer), std::move(weights));
}

Result<std::unique_ptr<ControlledSession>> Engine::createSession(SessionOptions options,
                                                                 std::shared_ptr<SessionControls> controls) const {
    if (controls) {
        options.selfAttentionCache = controls->selfCache.load();
        options.crossAttentionCache = controls->crossCache.load();
        options.stepGraphs = controls->stepGraphs.load();
    } else {
        controls = std::make_shared<SessionControls>(options);
    }
    auto session = InferenceSession::create(m_weights, options);
    if (!session) return session.error();
    return std::make_unique<ControlledSession>(std::move(session).value(), std::move(controls), options.maxBeams);
}

} // namespace hearsay
