// hearsay-cli make-test-model: writes a randomly initialised Whisper model (real dimensions, real
// vocabulary) as a Hugging Face checkpoint directory or a whisper.cpp ggml file.
#include "app/cli/command.h"
#include "app/cli/shared_data.h"
#include "core/model/test_model.h"

#include <chrono>
#include <limits>
#include <cstdio>

namespace hearsay::cli {
namespace {

void declareMakeTestModel(CLI::App& c) {
    addPositional(c, "OUT", "where to write the model");
    addText(c, "--dims", "SIZE",
            "tiny, tiny.en, base, base.en, small(.en), medium(.en), large-v1, large-v2, large-v3, large-v3-turbo, or "
            "DxLxH (width, layers, heads; multilingual vocabulary) (required)");
    addInt(c, "--seed", 0, std::numeric_limits<long long>::max(), "seed of the deterministic weights (default 0)");
    addChoice(c, "--format", {"hf", "ggml"}, "hf: a checkpoint directory OUT; ggml: a whisper.cpp file OUT (required)");
    addChoice(c, "--dtype", {"f32", "f16", "bf16", "q8_0", "q5_0", "q5_1", "q4_0", "q4_1"},
              "f32 (default), f16, bf16 (hf only), q8_0, q5_0, q5_1, q4_0, q4_1 (ggml only)");
    addText(c, "--vocab", "FILE",
            "whisper.cpp ggml file holding the vocabulary (default: the shared data's ggml-vocab-tiny.bin, or "
            "ggml-vocab-tiny.en.bin for English-only sizes, from $HEARSAY_SHARED_DATA_DIR or a shared/data folder "
            "above hearsay-cli)");
}

int runMakeTestModel(const Options& options) {
    auto fail = [](const std::string& message) {
        std::fprintf(stderr, "hearsay-cli make-test-model: %s\n", message.c_str());
        return 2;
    };
    if (options.positional().size() != 1) return fail("expected one output path (see --help)");
    if (!options.value("dims") || !options.value("format")) return fail("--dims and --format are required (see --help)");

    TestModelOptions request;
    request.dims = *options.value("dims");
    const std::string seedText = options.value("seed", "0");
    try {
        size_t used = 0;
        request.seed = std::stoull(seedText, &used);
        if (used != seedText.size() || seedText[0] == '-') throw std::invalid_argument(seedText);
    } catch (const std::exception&) {
        return fail("--seed expects a non-negative integer, got '" + seedText + "'");
    }
    const std::string format = *options.value("format");
    if (format == "hf") request.format = ModelFormat::HuggingFace;
    else if (format == "ggml") request.format = ModelFormat::Ggml;
    else return fail("--format must be hf or ggml, got '" + format + "'");
    auto dtype = parseDtype(options.value("dtype", "f32"));
    if (!dtype) return fail(dtype.message());
    request.dtype = dtype.value();
    const bool english = request.dims.size() > 3 && request.dims.compare(request.dims.size() - 3, 3, ".en") == 0;
    if (auto vocab = options.value("vocab")) {
        request.vocabularyFile = *vocab;
    } else {
        auto found = sharedDataFile(english ? "ggml-vocab-tiny.en.bin" : "ggml-vocab-tiny.bin", "--vocab");
        if (!found) return fail(found.message());
        request.vocabularyFile = found.value();
    }

    const auto start = std::chrono::steady_clock::now();
    if (auto ok = makeTestModel(request, options.positional()[0]); !ok) {
        std::fprintf(stderr, "hearsay-cli make-test-model: %s\n", ok.message().c_str());
        return 1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %s (%s, %s, %s, seed %llu) in %.2f s\n", options.positional()[0].c_str(), request.dims.c_str(),
                format.c_str(), std::string(dtypeName(request.dtype)).c_str(), static_cast<unsigned long long>(request.seed),
                seconds);
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(make_test_model, "make-test-model", "write a randomly initialised Whisper model (hf or ggml)",
                    declareMakeTestModel, runMakeTestModel);

} // namespace hearsay::cli
