// Test helpers for the engine suites: Whisper models with deterministic random weights built in
// memory (testModelWeights of core/model/test_model.h, the scheme the Python reference harness
// and make-test-model share), synthetic log-mels, and the real clips' log-mels.
#pragma once

#include "core/backend/backend.h"
#include "core/engine/backend_factory.h"
#include "core/frontend/log_mel.h"
#include "core/frontend/pcm_wav.h"
#include "core/model/random_init.h"
#include "core/model/test_model.h"
#include "core/model/whisper_model.h"
#include "core/model/whisper_tensors.h"
#include "core/nn/inference_session.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hearsay::test {

// A custom size: width d, `layers` encoder and decoder layers, `heads` heads.
inline WhisperConfig customConfig(int d, int layers, int heads, int audioCtx = 1500, int vocab = 51865) {
    WhisperConfig c;
    c.nMels = 80;
    c.nAudioCtx = audioCtx;
    c.nAudioState = c.nTextState = d;
    c.nAudioHead = c.nTextHead = heads;
    c.nAudioLayer = c.nTextLayer = layers;
    c.nVocab = vocab;
    c.nTextCtx = 448;
    return c;
}

// Every tensor of `config` filled with initValue(seed, hf name, i, mean, std), float32;
// `round`, when given, is applied to every value (e.g. through fp16, as a checkpoint stores it).
using ValueRounding = std::function<float(const TensorSpec& spec, float value)>;
inline std::shared_ptr<const WhisperModel> makeRandomModel(const WhisperConfig& config, uint64_t seed,
                                                           const ValueRounding& round = {}) {
    WhisperModel::Parts parts;
    parts.config = config;
    parts.format = ModelFormat::HuggingFace;
    parts.path = "<random model seed " + std::to_string(seed) + ">";
    for (const TensorSpec& spec : whisperTensorSpecs(config, &parts.weights)) {
        if (!spec.target) throw std::logic_error("tensor " + spec.hfName + " is not bound to a weight field");
        const auto n = static_cast<size_t>(spec.elements());
        std::shared_ptr<float[]> buffer(new float[n]);
        testModelWeights(seed, spec, 0, static_cast<int64_t>(n), buffer.get());
        if (round) {
            for (size_t i = 0; i < n; ++i) buffer[i] = round(spec, buffer[i]);
        }
        *spec.target = TensorView{spec.hfName, DType::F32, spec.shape, reinterpret_cast<const std::byte*>(buffer.get()),
                                  n * sizeof(float)};
        parts.weightBytes += n * sizeof(float);
        parts.ownedBuffers.push_back(std::shared_ptr<const void>(buffer, buffer.get()));
    }
    return std::make_shared<const WhisperModel>(std::move(parts));
}

// `model` with every tensor widened to float32 in memory, as the CPU backend widens a type it does
// not keep as stored: the reference for weights kept in their blocks.
inline std::shared_ptr<const WhisperModel> widenedModel(const WhisperModel& model) {
    WhisperModel::Parts parts;
    parts.config = model.config();
    parts.format = ModelFormat::HuggingFace;
    parts.path = "<widened copy>";
    WhisperWeights source = model.weights();
    std::map<std::string, const TensorView*> byName;
    for (const TensorSpec& spec : whisperTensorSpecs(parts.config, &source)) byName[spec.hfName] = spec.target;
    for (const TensorSpec& spec : whisperTensorSpecs(parts.config, &parts.weights)) {
        const TensorView& from = *byName.at(spec.hfName);
        const auto n = static_cast<size_t>(from.elements());
        std::shared_ptr<float[]> buffer(new float[n]);
        convertToFloat(from, buffer.get());
        *spec.target = TensorView{spec.hfName, DType::F32, from.shape, reinterpret_cast<const std::byte*>(buffer.get()),
                                  n * sizeof(float)};
        parts.weightBytes += n * sizeof(float);
        parts.ownedBuffers.push_back(std::shared_ptr<const void>(buffer, buffer.get()));
    }
    return std::make_shared<const WhisperModel>(std::move(parts));
}

// A log-mel-like input: smooth bands over time in [-1.5, 1.5], different for each seed.
inline LogMel syntheticMel(int nMels, int frames, uint64_t seed) {
    LogMel mel;
    mel.nMels = nMels;
    mel.frames = frames;
    mel.data.resize(static_cast<size_t>(nMels) * static_cast<size_t>(frames));
    for (int m = 0; m < nMels; ++m) {
        for (int f = 0; f < frames; ++f) {
            const double noise = initValue(seed, "mel", static_cast<uint64_t>(m) * 100003u + static_cast<uint64_t>(f), 0.0, 0.3);
            const double tone = std::sin(0.013 * f * (1.0 + 0.1 * static_cast<double>(seed % 7)) + 0.21 * m);
            mel.data[static_cast<size_t>(m) * static_cast<size_t>(frames) + static_cast<size_t>(f)] =
                static_cast<float>(std::clamp(tone + noise, -1.5, 1.5));
        }
    }
    return mel;
}

// The log-mels of the three speech clips in ../shared/data (jfk, speech-30s-a, speech-30s-b)
// through the C++ frontend, as the reference harness orders them (the clips are 16 kHz mono
// 16-bit WAV, read by the engine's own reader in every build). Empty when the clips are missing;
// *why says which.
inline std::vector<LogMel> speechClipMels(int nMels, std::string* why = nullptr) {
    std::vector<LogMel> mels;
    for (const char* name : {"jfk.wav", "speech-30s-a.wav", "speech-30s-b.wav"}) {
        auto samples = readPcm16Wav(std::string(HEARSAY_SHARED_DATA_DIR) + "/" + name);
        if (!samples) {
            if (why) *why = samples.message();
            return {};
        }
        mels.push_back(logMelSpectrogram(samples->data(), samples->size(), nMels));
    }
    return mels;
}

// `steps` decode steps after `tokens`, each appending pick(logits, tokens); every step's logits
// are appended to *allLogits when given. Fails the calling test through the returned error text.
template <class Pick>
inline Result<std::vector<int>> decodeSteps(InferenceSession& session, std::vector<int> tokens, int steps,
                                            std::vector<float>* allLogits, Pick pick) {
    std::vector<float> logits;
    for (int s = 0; s < steps; ++s) {
        if (auto ok = session.decode({tokens}, logits); !ok) return ok.error();
        if (allLogits) allLogits->insert(allLogits->end(), logits.begin(), logits.end());
        tokens.push_back(pick(logits, tokens));
    }
    return tokens;
}

// Greedy argmax decoding.
inline Result<std::vector<int>> greedyDecode(InferenceSession& session, std::vector<int> tokens, int steps,
                                             std::vector<float>* allLogits = nullptr) {
    return decodeSteps(session, std::move(tokens), steps, allLogits, [](const std::vector<float>& logits, const std::vector<int>&) {
        return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    });
}

// The token a no-repeat greedy step picks: the highest logit among tokens not yet in `tokens`.
// Random-weight models fall into repeating one or two tokens under plain greedy decoding, which
// would make "the same tokens" a weak check; this keeps every step's choice a new token while it
// still follows the logits (a wrong logit changes the choice).
inline int bestUnusedToken(const std::vector<float>& logits, const std::vector<int>& tokens) {
    int best = -1;
    for (int t = 0; t < static_cast<int>(logits.size()); ++t) {
        if (std::find(tokens.begin(), tokens.end(), t) != tokens.end()) continue;
        if (best < 0 || logits[size_t(t)] > logits[size_t(best)]) best = t;
    }
    return best;
}

// greedyDecode with bestUnusedToken: `steps` distinct new tokens.
inline Result<std::vector<int>> distinctGreedyDecode(InferenceSession& session, std::vector<int> tokens, int steps,
                                                     std::vector<float>* allLogits = nullptr) {
    return decodeSteps(session, std::move(tokens), steps, allLogits, bestUnusedToken);
}

// max |a - b| / max |b|: the relative error used by the engine tests (b: float or double).
template <class Reference>
inline double relativeError(const std::vector<float>& a, const std::vector<Reference>& b) {
    if (a.size() != b.size()) return INFINITY;
    double diff = 0.0, scale = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i]));
        scale = std::max(scale, std::abs(static_cast<double>(b[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

// Writes a random-weight model with the real multilingual vocabulary (../shared/data's
// ggml-vocab-tiny.bin) at `out`, as make-test-model does: a model Engine::load takes, tokenizer
// included. dims: "64x2x2", "tiny", ...
inline Result<void> writeTestModel(const std::string& out, const std::string& dims, uint64_t seed,
                                   DType dtype = DType::F32, ModelFormat format = ModelFormat::HuggingFace) {
    TestModelOptions options;
    options.dims = dims;
    options.seed = seed;
    options.format = format;
    options.dtype = dtype;
    options.vocabularyFile = std::string(HEARSAY_SHARED_DATA_DIR) + "/ggml-vocab-tiny.bin";
    return makeTestModel(options, out);
}

// Fp32 by default: the exact float32 path the comparisons with independent implementations and
// between switches need (the programs' default, Fp16, keeps the cross cache in half).
inline std::shared_ptr<Backend> cpuBackend(int threads = 2, Precision precision = Precision::Fp32) {
    auto backend = createBackend(BackendKind::Cpu, {threads, 0, precision});
    if (!backend) throw std::runtime_error(backend.message());
    return backend.value();
}

} // namespace hearsay::test
