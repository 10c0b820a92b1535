// hearsay-cli bench: the engine it drives, and the child processes it runs itself as (one row of
// the cache table each, for honest peak memory; one real-file transcription each).
//
// The protocol between the bench and its children: two commands of hearsay-cli, hidden from the
// help (they are no user's interface), with their options declared here like any command's.
//
//   hearsay-cli bench-cache-row --model PATH --length N --mode both|self|cross|none
//       [--backend B] [--precision P] [--threads N] [--audio WAV] [--no-step-graphs]
//     One row of the cache table (cmd_bench.cpp): loads the model, decodes N tokens over the
//     input window of --audio with the caches of --mode, and prints the row as one line of JSON
//     (core/bench/cache_run.h: toJson) on stdout, its peak resident memory included.
//
//   hearsay-cli bench-real-file --model PATH --audio FILE --json OUT [--beam-size N]
//       [--threads N] [--language L] [--name NAME] [--backend B] [--precision P] [--no-step-graphs]
//     One transcription of a real file (core/bench/real_file_bench.cpp plans it): writes the run
//     (core/bench/real_file_run.h: toJson, with "version" the backend's name) to OUT.
//
// Both exit 0 on success; a refused option is exit status 2, a failure to run 1, with one line on
// stderr. --backend, --precision, --threads, --audio and --no-step-graphs mean what they mean to
// `hearsay-cli bench` (read by parseSettings).
#include "app/cli/bench/bench_cli.h"

#include "app/cli/command.h"
#include "core/backend/backend.h"
#include "core/bench/bench_input.h"
#include "core/bench/cache_run.h"
#include "core/bench/fixed_work.h"
#include "core/bench/machine_info.h"
#include "core/bench/peak_memory.h"
#include "core/bench/real_file_bench.h"
#include "core/bench/real_file_run.h"
#include "core/bench/roofline.h"
#include "core/bench/subprocess.h"
#include "core/engine/engine.h"
#include "core/model/whisper_model.h"
#include "core/nn/inference_session.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"
#include "core/bench/gpu_specs.h"
#ifdef HEARSAY_HAVE_STREAMING
#include "core/streaming/streaming_benchmark.h"
#endif
#ifdef HEARSAY_HAVE_CUDA
#include "kernels/peak_rates.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;

namespace hearsay::cli::bench {

Result<BenchEngine> openEngine(const std::string& path, BackendKind kind, Precision precision, int threads,
                               bool stepGraphs, SessionOptions options) {
    EngineOptions engineOptions;
    engineOptions.backend = kind;
    engineOptions.backendOptions.threads = threads;
    engineOptions.backendOptions.precision = precision;
    auto engine = Engine::load(path, engineOptions);
    if (!engine) return engine.error();
    options.stepGraphs = stepGraphs;
    auto session = engine->createSession(options);
    if (!session) return session.error();
    return BenchEngine{std::move(engine).value(), std::move(session).value()};
}

// --- child: one row of the cache table ------------------------------------------------------

void declareCacheRow(CLI::App& c) {
    addText(c, "--model", "PATH", "the model")->required();
    addInt(c, "--length", 1, 100000, "decode length in tokens")->required();
    addChoice(c, "--mode", {"both", "self", "cross", "none"}, "the caches on")->required();
    addChoice(c, "--backend", {"cpu", "cuda", "auto"}, "the backend (default cpu)");
    addChoice(c, "--precision", {"fp16", "fp32"}, "CUDA precision (default fp16)");
    addInt(c, "--threads", 1, 4096, "CPU threads (default: all available)");
    addText(c, "--audio", "WAV", "the input window's audio (default: the shared data's speech-30s-a.wav)");
    addFlag(c, "--no-step-graphs", "run every decode step op by op");
}

int runCacheRow(const Options& options) {
    auto parsed = parseSettings(options);
    if (!parsed) return fail(parsed.message());
    const Settings& settings = parsed.value();
    const auto path = options.value("model");
    CacheMode mode;
    if (!path || !parseCacheMode(options.value("mode", ""), mode)) return fail("bench-cache-row needs --model and --mode");
    auto length = parsePositive("--length", options.value("length", ""));
    if (!length) return fail(length.message());

    SessionOptions sessionOptions;
    sessionOptions.maxBeams = 1;
    sessionOptions.selfAttentionCache = usesSelfCache(mode);
    sessionOptions.crossAttentionCache = usesCrossCache(mode);
    auto engine = openEngine(*path, settings.backend, settings.precision, settings.threads, settings.stepGraphs,
                             sessionOptions);
    if (!engine) return fail(engine.message(), 1);
    auto mel = benchInput(settings, engine->engine.model().config().nMels);
    if (!mel) return fail(mel.message(), 1);
    const size_t afterLoad = currentResidentBytes();
    auto row = runCacheConfiguration(*engine->session, mel.value(), length.value(), mode);
    if (!row) return fail(row.message(), 1);
    row->residentAfterLoadBytes = afterLoad;
    row->peakResidentBytes = peakResidentBytes();
    std::printf("%s\n", toJson(row.value()).dump().c_str());
    return 0;
}

// --- child: one real-file transcription -----------------------------------------------------

void declareRealFile(CLI::App& c) {
    addText(c, "--model", "PATH", "the model")->required();
    addText(c, "--audio", "FILE", "the audio file to transcribe")->required()->check(existingFile());
    addText(c, "--json", "OUT", "where the run's JSON goes")->required();
    addInt(c, "--beam-size", 1, 16, "beams (default 1: greedy)");
    addInt(c, "--threads", 1, 4096, "CPU threads (default: all available)");
    addText(c, "--language", "L", "the spoken language (default en)");
    addText(c, "--name", "NAME", "the program's name in the report (default hearsay)");
    addChoice(c, "--backend", {"cpu", "cuda", "auto"}, "the backend (default cpu)");
    addChoice(c, "--precision", {"fp16", "fp32"}, "CUDA precision (default fp16)");
    addFlag(c, "--no-step-graphs", "run every decode step op by op");
}

int runRealFileChild(const Options& options) {
    auto parsed = parseSettings(options);
    if (!parsed) return fail(parsed.message());
    const Settings& settings = parsed.value();
    const auto path = options.value("model");
    const auto audio = options.value("audio");
    const auto out = options.value("json");
    if (!path || !audio || !out) return fail("bench-real-file needs --model, --audio and --json");
    auto beam = parsePositive("--beam-size", options.value("beam-size", "1"));
    if (!beam) return fail(beam.message());
    SessionOptions sessionOptions;
    sessionOptions.maxBeams = beam.value();
    auto engine = openEngine(*path, settings.backend, settings.precision, settings.threads, settings.stepGraphs,
                             sessionOptions);
    if (!engine) return fail(engine.message(), 1);
    RealFileTask task;
    task.audio = *audio;
    task.beamSize = beam.value();
    task.language = options.value("language", "en");
    auto run = runRealFile(*engine->session, engine->engine.tokenizer(), task);
    if (!run) return fail(run.message(), 1);
    run->program = options.value("name", "hearsay");
    json document = toJson(run.value());
    document["version"] = std::string(engine->engine.backend().name());
    std::ofstream file(*out);
    file << dumpJson(document) << "\n";
    return file ? 0 : fail("cannot write '" + *out + "'", 1);
}

HEARSAY_CLI_HIDDEN_COMMAND(bench_cache_row, "bench-cache-row", "one row of the bench's cache table (internal)",
                           declareCacheRow, runCacheRow);
HEARSAY_CLI_HIDDEN_COMMAND(bench_real_file, "bench-real-file", "one real-file run of the bench (internal)",
                           declareRealFile, runRealFileChild);

// --- parent ---------------------------------------------------------------------------------

// Runs this executable again with `args`; returns its stdout or an error with its status.
Result<std::string> runSelf(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {currentExecutablePath()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = runProcess(argv);
    if (!result) return result.error();
    if (result->exitCode != 0) {
        std::string command;
        for (size_t i = 1; i < argv.size(); ++i) command += (i > 1 ? " " : "") + argv[i];
        return makeError("'" + command + "' failed (" +
                         (result->signal ? "signal " + std::to_string(result->signal) : "exit " + std::to_string(result->exitCode)) + ")");
    }
    return result->output;
}

// The made test model of `size` in `format`, created with make-test-model when missing.
Result<std::string> ensureTestModel(const Settings& s, const std::string& size, const std::string& format) {
    const fs::path dir = fs::path(s.workDir) / (size + "-seed" + s.seed + "-" + s.dtype);
    const fs::path path = dir / (format == "hf" ? "hf" : "model.ggml.bin");
    std::error_code ec;
    if (fs::exists(format == "hf" ? path / "model.safetensors" : path, ec)) return path.string();
    fs::create_directories(dir, ec);
    if (ec) return makeError("cannot create '" + dir.string() + "': " + ec.message());
    // ggml blocks exist in the ggml file only: the Hugging Face form of a q8_0 or q5_0 run is f16.
    const std::string dtype = format == "hf" && s.dtype != "f32" ? "f16" : s.dtype;
    std::fprintf(stderr, "bench: making %s (%s, %s, seed %s)\n", path.c_str(), size.c_str(), dtype.c_str(), s.seed.c_str());
    auto made = runSelf({"make-test-model", "--dims", size, "--seed", s.seed, "--format", format, "--dtype", dtype, path.string()});
    if (!made) return made.error();
    return path.string();
}

void describeEngine(ModelReport& m, const BenchEngine& engine) {
    m.config = engine.engine.model().config();
    m.weightBytes = engine.engine.model().weightBytes();
    m.weightDtype = std::string(dtypeName(engine.engine.model().weights().tokenEmbedding.dtype));
    m.backendName = engine.engine.backend().name();
}

// The models of a run: --model's paths, or the made test models of --sizes (with the other
// format of the same weights where the peers read it).
Result<std::vector<ModelReport>> benchModels(const Settings& s) {
    std::vector<ModelReport> models;
    for (const auto& path : s.models) {
        ModelReport m;
        m.name = fs::path(path).filename().string();
        m.path = path;
        (fs::is_directory(path) ? m.hfPath : m.ggmlPath) = path;
        models.push_back(m);
    }
    if (!s.models.empty()) return models;
    for (const auto& size : s.sizes) {
        ModelReport m;
        m.name = size;
        auto path = ensureTestModel(s, size, s.format);
        if (!path) return path.error();
        m.path = path.value();
        (s.format == "hf" ? m.hfPath : m.ggmlPath) = m.path;
        if (s.peers && peersNeed(s, s.format == "hf" ? "ggml" : "hf")) {  // the weights are bit-identical (same seed)
            auto other = ensureTestModel(s, size, s.format == "hf" ? "ggml" : "hf");
            if (!other) return other.error();
            (s.format == "hf" ? m.ggmlPath : m.hfPath) = other.value();
        }
        models.push_back(m);
    }
    return models;
}

} // namespace hearsay::cli::bench
