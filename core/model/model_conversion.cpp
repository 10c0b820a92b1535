// Model conversion through the streaming writers (see model_conversion.h).
#include "core/model/model_conversion.h"

#include "core/model/model_tokenizer.h"
#include "core/model/model_writer.h"
#include "core/model/whisper_tensors.h"

#include <map>
#include <memory>

namespace fs = std::filesystem;

namespace hearsay {

Result<void> convertModel(const WhisperModel& model, const fs::path& out, const ConversionOptions& options) {
    if (model.vocabulary().empty()) {
        return makeError(model.path().string() + " has no vocabulary to convert (a weights-only checkpoint)");
    }
    auto tokenizer = tokenizerForModel(model);
    if (!tokenizer) return tokenizer.error();

    ModelWriteRequest request;
    request.config = model.config();
    request.dtype = options.dtype;
    request.ct2IntegerBits = options.ct2IntegerBits;
    request.vocabulary = model.vocabulary().strings();
    const GenerationSettings& generation = model.generation();
    request.suppressTokens = generation.fromGenerationConfig && !generation.suppressTokens.empty() ? generation.suppressTokens
                                                                                                  : tokenizer->nonSpeechTokens();
    request.alignmentHeads = generation.alignmentHeads;

    // The model's tensors by Hugging Face name; each is converted to float once, when first asked.
    auto weights = std::make_shared<WhisperWeights>(model.weights());
    auto views = std::make_shared<std::map<std::string, const TensorView*>>();
    auto specs = std::make_shared<std::vector<TensorSpec>>(whisperTensorSpecs(model.config(), weights.get()));
    for (const auto& spec : *specs) (*views)[spec.hfName] = spec.target;
    auto cache = std::make_shared<std::pair<std::string, std::vector<float>>>();
    request.weights = [views, weights, specs, cache](const TensorSpec& spec, int64_t first, int64_t count, float* values) {
        if (cache->first != spec.hfName) {
            const TensorView& view = *views->at(spec.hfName);
            cache->second.resize(size_t(view.elements()));
            convertToFloat(view, cache->second.data());
            cache->first = spec.hfName;
        }
        std::copy(cache->second.begin() + first, cache->second.begin() + first + count, values);
    };

    std::error_code ec;
    if (fs::exists(out, ec) && !options.overwrite) return makeError(out.string() + " exists (pass --force to replace it)");
    fs::path partial = out;
    partial += ".partial";
    fs::remove_all(partial, ec);
    Result<void> written = makeError("");
    switch (options.format) {
    case ModelFormat::HuggingFace: written = writeHuggingFaceCheckpoint(partial, request); break;
    case ModelFormat::Ggml: written = writeGgmlModel(partial, request); break;
    case ModelFormat::CTranslate2: written = writeCTranslate2Checkpoint(partial, request); break;
    }
    if (!written) {
        fs::remove_all(partial, ec);
        return written;
    }
    fs::remove_all(out, ec);
    fs::rename(partial, out, ec);
    if (ec) {
        fs::remove_all(partial, ec);
        return makeError("cannot move the converted model into place at " + out.string() + ": " + ec.message());
    }
    return {};
}

} // namespace hearsay
