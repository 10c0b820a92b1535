// make-test-model: the deterministic random weights written through model_writer.
#include "core/model/test_model.h"

#include "core/model/ggml_file.h"
#include "core/model/model_writer.h"
#include "core/model/random_init.h"
#include "core/model/vocabulary_repair.h"
#include "core/text/tokenizer.h"

namespace hearsay {

void testModelWeights(uint64_t seed, const TensorSpec& spec, int64_t first, int64_t count, float* out) {
    fillInitValues(seed, spec.hfName, uint64_t(first), uint64_t(count), spec.initMean, spec.initStd, out);
}

Result<DType> parseDtype(const std::string& name) {
    for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0}) {
        if (name == dtypeName(t)) return t;
    }
    return makeError("unknown dtype '" + name + "' (expected f32, f16, bf16, q8_0, q5_0, q5_1, q4_0 or q4_1)");
}

Result<void> makeTestModel(const TestModelOptions& options, const std::filesystem::path& out) {
    auto config = WhisperConfig::fromName(options.dims);
    if (!config) return config.error();

    // The vocabulary comes from a whisper.cpp file (a vocabulary-only test file or a model).
    auto vocab = openGgml(options.vocabularyFile);
    if (!vocab) return makeError("cannot read the vocabulary: " + vocab.message());
    if (vocab->config.isMultilingual() != config->isMultilingual()) {
        return makeError(options.vocabularyFile.string() + " holds the " +
                         (vocab->config.isMultilingual() ? "multilingual" : "English-only") + " vocabulary, but '" + options.dims +
                         "' is " + (config->isMultilingual() ? "multilingual" : "English-only"));
    }

    // whisper.cpp's test files store partial-UTF-8 tokens lossily: restore the true bytes.
    auto repair = repairWhisperCppVocabulary(vocab->vocabulary, vocab->config.isMultilingual());
    if (!repair.recognised) {
        return makeError(options.vocabularyFile.string() + " holds lossily stored tokens that do not match Whisper's vocabulary");
    }

    ModelWriteRequest request;
    request.config = config.value();
    request.dtype = options.dtype;
    request.vocabulary = std::move(vocab->vocabulary);
    // The reference's suppress_tokens ("-1"): non-speech symbols, from this vocabulary.
    auto tokenizer = Tokenizer::fromVocabulary(request.vocabulary, config->nVocab);
    if (!tokenizer) return makeError("cannot build the tokenizer of the test model: " + tokenizer.message());
    request.suppressTokens = tokenizer->nonSpeechTokens();
    const uint64_t seed = options.seed;
    request.weights = [seed](const TensorSpec& spec, int64_t first, int64_t count, float* values) {
        testModelWeights(seed, spec, first, count, values);
    };
    if (options.format == ModelFormat::HuggingFace) return writeHuggingFaceCheckpoint(out, request);
    return writeGgmlModel(out, request);
}

} // namespace hearsay
