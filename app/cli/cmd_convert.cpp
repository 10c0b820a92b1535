// hearsay-cli convert: any model Hearsay loads (Hugging Face, CTranslate2, ggml) written as a
// Hugging Face checkpoint, a whisper.cpp ggml file or a CTranslate2 directory.
#include "app/cli/command.h"
#include "core/model/model_conversion.h"
#include "core/model/test_model.h"
#include "core/model/whisper_model.h"

#include <chrono>
#include <cstdio>

namespace hearsay::cli {
namespace {

void declareConvert(CLI::App& c) {
    c.footer("Writes the model IN (a Hugging Face checkpoint directory, a CTranslate2 directory or a whisper.cpp\n"
             "ggml .bin) as OUT in another format, so that peers read the same weights:\n"
             "  hf    a directory transformers loads (config.json, model.safetensors, tokenizer files)\n"
             "  ggml  a file whisper.cpp loads\n"
             "  ct2   a directory faster-whisper / CTranslate2 load (model.bin, config.json, vocabulary.txt)");
    addPositional(c, "IN", "the model to read");
    addPositional(c, "OUT", "where to write it");
    addChoice(c, "--to", {"hf", "ggml", "ct2"}, "the format to write (required)");
    addChoice(c, "--dtype", {"f32", "f16", "bf16", "q8_0", "q5_0", "q5_1", "q4_0", "q4_1", "int8", "int16"},
              "f32, f16 (default), bf16 (hf, ct2); q8_0, q5_0, q5_1, q4_0, q4_1 (ggml: every matrix in "
              "blocks, the token embedding included, conv weights f16, the rest f32, as whisper.cpp's "
              "quantiser writes them); int8, int16 (ct2: ctranslate2's quantisation of the matrices, the "
              "rest float32)");
    addFlag(c, "--force", "replace OUT if it exists");
}

int runConvert(const Options& options) {
    auto fail = [](const std::string& message, int code = 2) {
        std::fprintf(stderr, "hearsay-cli convert: %s\n", message.c_str());
        return code;
    };
    if (options.positional().size() != 2) return fail("expected IN and OUT (see --help)");
    if (!options.value("to")) return fail("--to is required (see --help)");

    ConversionOptions conversion;
    conversion.overwrite = options.has("force");
    const std::string to = *options.value("to");
    if (to == "hf") conversion.format = ModelFormat::HuggingFace;
    else if (to == "ggml") conversion.format = ModelFormat::Ggml;
    else if (to == "ct2") conversion.format = ModelFormat::CTranslate2;
    else return fail("--to must be hf, ggml or ct2, got '" + to + "'");
    const std::string dtype = options.value("dtype", "f16");
    if (dtype == "int8" || dtype == "int16") {
        if (conversion.format != ModelFormat::CTranslate2) return fail("--dtype " + dtype + " is a CTranslate2 quantisation (--to ct2)");
        conversion.ct2IntegerBits = dtype == "int8" ? 8 : 16;
        conversion.dtype = DType::F32;
    } else {
        auto parsed = parseDtype(dtype);
        if (!parsed) return fail(parsed.message());
        conversion.dtype = parsed.value();
    }

    const auto start = std::chrono::steady_clock::now();
    const std::string in = options.positional()[0], out = options.positional()[1];
    auto model = WhisperModel::load(in);
    if (!model) return fail(model.message(), 1);
    if (auto ok = convertModel(*model.value(), out, conversion); !ok) return fail(ok.message(), 1);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %s (%s, %s) from %s (%s) in %.2f s\n", out.c_str(), modelFormatName(conversion.format), dtype.c_str(),
                in.c_str(), modelFormatName(model.value()->format()), seconds);
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(convert, "convert", "write a model in another format (hf, ggml, ct2) for peers and references",
                    declareConvert, runConvert);

} // namespace hearsay::cli
