// hearsay-cli bench: the benchmark instrument. Fixed work comparable with whisper.cpp's bench,
// the with/without-cache table (each row in a fresh child process, for honest peak memory),
// physical floors, and the peers (transformers, faster-whisper, whisper.cpp) in the same run.
#include "app/cli/command.h"
#include "app/cli/options.h"
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
#include "core/util/json.h"
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

#ifndef HEARSAY_GIT_COMMIT
#define HEARSAY_GIT_COMMIT "unknown"
#endif
#ifndef HEARSAY_BUILD_TYPE
#define HEARSAY_BUILD_TYPE "unknown"
#endif

namespace hearsay::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: hearsay-cli bench [OPTIONS]\n"
    "  Fixed work per model (as whisper.cpp's bench): one encoder pass over a 30 s window (with the\n"
    "  cross-attention K/V projection), 256 single-token decode steps (cache 0..255), 64 steps of 5\n"
    "  beams, a 256-token prompt run 16 times; medians of --repeats runs after --warmup runs. Then the\n"
    "  cache table: time per token and peak memory for each decode length with caches {both, self,\n"
    "  cross, none}, each row in a fresh child process. Floors from measured machine peaks.\n"
    "  --sizes LIST      model sizes to make with make-test-model (default tiny,base)\n"
    "  --model PATH      benchmark this model instead (HF directory or ggml file); repeatable via commas\n"
    "  --format F        format Hearsay loads for made models: ggml (default, as whisper.cpp) or hf\n"
    "  --dtype T         weights of made models: f16 (default: what whisper.cpp's bench needs; its\n"
    "                    convolutions take f16 only) or f32\n"
    "  --seed N          seed of the random weights (default 1)\n"
    "  --backend B       cpu, cuda or auto (default cpu)\n"
    "  --precision P     CUDA weights and GEMMs: fp16 (default; tensor cores, fp32 accumulation) or fp32;\n"
    "                    also the floors' element bytes and the transformers peers' dtype\n"
    "  --threads N       CPU threads (default: all available)\n"
    "  --no-step-graphs  run every decode step op by op (default: record each step shape once and\n"
    "                    replay it per token; a CUDA graph on the GPU)\n"
    "  --repeats N       timed repeats (default 3)      --warmup N   untimed runs first (default 1)\n"
    "  --lengths LIST    cache-table decode lengths (default 20,128,224; longer ones such as 444\n"
    "                    chain 30 s windows, see bench_work.h)\n"
    "  --modes LIST      cache-table switches (default both,self,cross,none)\n"
    "  --no-cache-table  skip the cache table          --no-floors  skip the peak probe and floors\n"
    "  --peak-gflops X --peak-gbs Y   assume these peaks for the floors instead of measuring them\n"
    "                    (CUDA: the probe times an fp16 cuBLAS GEMM and a 1 GiB read/copy on the GPU and\n"
    "                    reports the spec sheet's figures beside them for known devices)\n"
    "  --floors-only     print the floors of --sizes (any official size or DxLxH) and stop\n"
    "  --peers           run scripts/bench/peers.py in the same run and print ratios Hearsay/peer\n"
    "  --peers-list L    peers to run (default: all of peers.py; with --backend cuda: transformers-static)\n"
    "  --peers-compile   also time transformers' static cache under torch.compile (reduce-overhead),\n"
    "                    bounded by --peers-compile-timeout S (default 300)\n"
    "  --python PATH     interpreter for peers.py (default: SOURCE/.venv-bench/bin/python when it\n"
    "                    exists, else python3)\n"
    "  --audio WAV       16 kHz mono 16-bit input (default: shared data speech-30s-a.wav)\n"
    "  --work-dir DIR    where made models are kept (default: /tmp/hearsay-bench)\n"
    "  --json FILE       also write the full report as JSON\n"
    "  --decode-steps N --batch-steps N --batch-beams N --prompt-tokens N --prompt-runs N\n"
    "                    change the fixed work (default 256, 64, 5, 256, 16)\n"
    "Real-file section (instead of the fixed work and the cache table when --real-files is given):\n"
    "  --real-files LIST     WAVs (16 kHz mono 16-bit) each program transcribes; a sibling FILE.txt is the\n"
    "                        reference for the word error rates (else faster-whisper-float32's text)\n"
    "  --real-models LIST    CTranslate2 model directories (converted here to ggml f16 and q8_0 for\n"
    "                        whisper.cpp and hearsay-q8_0, kept in --work-dir)\n"
    "  --real-beams LIST     beam sizes (default 1,5; 1 is greedy; Hearsay uses CTranslate2's beam rules)\n"
    "  --real-rounds N       interleaved rounds, one fresh process per program and round (default 3)\n"
    "  --real-programs LIST  default hearsay,hearsay-q8_0,faster-whisper-float32,faster-whisper-int8,\n"
    "                        whisper.cpp,whisper.cpp-q8_0\n"
    "  --whisper-cli PATH    whisper.cpp's CLI (default: SOURCE/build-whispercpp/build/bin/whisper-cli)\n"
    "  --language CODE       spoken language given to every program (default en)\n"
    "Streaming section (instead, when --streaming is given): each file played through a live session\n"
    "  --streaming LIST      audio files, played as a microphone at --speed (default 1: real time)\n"
    "  --real-models LIST    model directories (or files) to stream with (CPU, --threads)\n"
    "  --speed X             real-time multiple (default 1); --step S (default 1.0)\n"
    "  --audio-context LIST  full (default) and/or paddings in seconds (e.g. full,0.5,2): reduced\n"
    "                        audio context, the window plus that much padding encoded\n"
    "  reports per-step figures, latency (median, p90) from the end of a word's audio to its tentative\n"
    "  and committed display, real-time factor, dropped audio, and the WER of the committed text\n"
    "  against the offline transcript of the same file and model\n";

struct Settings {
    std::vector<std::string> sizes;
    std::vector<std::string> models;
    std::string format = "ggml";
    std::string dtype = "f16";
    std::string seed = "1";
    BackendKind backend = BackendKind::Cpu;
    Precision precision = Precision::Fp16;  // CUDA only; the CPU backend computes in float32
    int threads = 0;
    FixedWork work;
    std::vector<int> lengths = {20, 128, 224};
    std::vector<CacheMode> modes = {CacheMode::Both, CacheMode::SelfOnly, CacheMode::CrossOnly, CacheMode::None};
    bool cacheTable = true;
    bool stepGraphs = true;    // SessionOptions::stepGraphs
    bool floors = true;
    bool floorsOnly = false;
    double peakGflops = 0.0;   // assumed peaks instead of the probe's, when given
    double peakGbs = 0.0;
    bool peers = false;
    std::string peersList;
    bool peersCompile = false;
    int peersCompileTimeout = 300;
    std::string python;
    std::string audio = std::string(HEARSAY_SHARED_DATA_DIR) + "/speech-30s-a.wav";
    std::string workDir = "/tmp/hearsay-bench";
    std::string json;
    // the real-file section
    std::vector<std::string> realFiles;
    std::vector<std::string> realModels;
    std::vector<int> realBeams = {1, 5};
    int realRounds = 3;
    std::vector<std::string> realPrograms = {"hearsay", "hearsay-q8_0", "faster-whisper-float32", "faster-whisper-int8",
                                             "whisper.cpp", "whisper.cpp-q8_0"};
    std::string whisperCli;
    std::string language = "en";
    // the streaming section
    std::vector<std::string> streamingFiles;
    double speed = 1.0;
    double step = 1.0;
    std::vector<double> audioContexts = {-1.0};  // < 0: full
};

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        if (!item.empty()) items.push_back(item);
    }
    return items;
}

Result<int> parsePositive(const std::string& what, const std::string& text) {
    try {
        size_t used = 0;
        const int v = std::stoi(text, &used);
        if (used == text.size() && v > 0) return v;
    } catch (const std::exception&) {
    }
    return makeError(what + " expects a positive integer, got '" + text + "'");
}

int fail(const std::string& message, int code = 2) {
    std::fprintf(stderr, "hearsay-cli bench: %s\n", message.c_str());
    return code;
}

double mib(size_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

// --- the session ----------------------------------------------------------------------------

// One engine (model, backend, weights) and the one session the bench drives on it.
struct BenchEngine {
    Engine engine;
    std::unique_ptr<ControlledSession> session;
};

Result<BenchEngine> openEngine(const std::string& path, BackendKind kind, Precision precision, int threads,
                               bool stepGraphs, SessionOptions options) {
    EngineOptions engineOptions;
    engineOptions.backend = kind;
    engineOptions.backendOptions.threads = threads;
    engineOptions.backendOptions.precision = precision;
    auto engine = Engine::load(path, engineOptions);
    if (!engine) return engine.error();
    options.threads = threads;
    options.stepGraphs = stepGraphs;
    auto session = engine->createSession(options);
    if (!session) return session.error();
    return BenchEngine{std::move(engine).value(), std::move(session).value()};
}

// --- child: one row of the cache table ------------------------------------------------------

int runChild(const Options& options, const Settings& settings) {
    const auto path = options.value("model");
    CacheMode mode;
    if (!path || !parseCacheMode(options.value("mode", ""), mode)) return fail("child run needs --model and --mode");
    auto length = parsePositive("--length", options.value("length", ""));
    if (!length) return fail(length.message());

    SessionOptions sessionOptions;
    sessionOptions.maxBeams = 1;
    sessionOptions.selfAttentionCache = usesSelfCache(mode);
    sessionOptions.crossAttentionCache = usesCrossCache(mode);
    auto engine = openEngine(*path, settings.backend, settings.precision, settings.threads, settings.stepGraphs,
                             sessionOptions);
    if (!engine) return fail(engine.message(), 1);
    auto mel = benchWindow(settings.audio, engine->engine.model().config().nMels);
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

int runRealFileChild(const Options& options, const Settings& settings) {
    const auto path = options.value("model");
    const auto audio = options.value("audio");
    const auto out = options.value("json");
    if (!path || !audio || !out) return fail("--child-real-file needs --model, --audio and --json");
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
    Json json = toJson(run.value());
    json["version"] = std::string(engine->engine.backend().name());
    std::ofstream file(*out);
    file << json.dump() << "\n";
    return file ? 0 : fail("cannot write '" + *out + "'", 1);
}

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
    std::fprintf(stderr, "bench: making %s (%s, %s, seed %s)\n", path.c_str(), size.c_str(), s.dtype.c_str(), s.seed.c_str());
    auto made = runSelf({"make-test-model", "--dims", size, "--seed", s.seed, "--format", format, "--dtype", s.dtype, path.string()});
    if (!made) return made.error();
    return path.string();
}

struct ModelReport {
    std::string name;
    std::string path;
    std::string hfPath;    // for the peers
    std::string ggmlPath;
    WhisperConfig config;
    size_t weightBytes = 0;
    std::string backendName;
    size_t stepOperations = 0;  // of the decode step recording (CUDA: graph nodes per token)
    FixedWorkResult fixed;
    WorkFloors floors;
    ElementBytes elementBytes;  // what the floors assumed
    std::vector<CacheRunResult> rows;
    Json peers;            // peers.py's document, null when not run
};

void printFixedWork(const ModelReport& m, const Settings& s, bool haveFloors) {
    std::printf("\n%s (%dx%dx%d, %s): fixed work, median of %d after %d warm-up\n", m.name.c_str(), m.config.nAudioState,
                m.config.nAudioLayer, m.config.nAudioHead, m.backendName.c_str(), s.work.repeats, s.work.warmup);
    std::printf("  %-30s %12s %14s %14s %14s\n", "", "encoder ms", "decode ms/tok", "batch ms/tok", "prompt ms/tok");
    const double hearsay[4] = {m.fixed.encoderMs.median(), m.fixed.decodeMsPerToken.median(), m.fixed.batchMsPerToken.median(),
                               m.fixed.promptMsPerToken.median()};
    std::printf("  %-30s %12.2f %14.3f %14.3f %14.4f\n", "hearsay", hearsay[0], hearsay[1], hearsay[2], hearsay[3]);
    if (haveFloors) {
        std::printf("  %-30s %12.2f %14.3f %14.3f %14.4f\n", "floor (peaks below)", m.floors.encoderMs, m.floors.decodeMsPerToken,
                    m.floors.batchMsPerToken, m.floors.promptMsPerToken);
    }
    if (m.peers.isNull()) return;
    static const char* figures[4] = {"encoderMs", "decodeMsPerToken", "batchMsPerToken", "promptMsPerToken"};
    for (const auto& [peer, data] : m.peers["peers"].toObject()) {
        double v[4];
        for (int i = 0; i < 4; ++i) v[i] = data["figures"][figures[i]]["median"].toDouble(0.0);
        std::printf("  %-30s %12.2f %14.3f %14.3f %14.4f\n", peer.c_str(), v[0], v[1], v[2], v[3]);
        std::printf("  %-30s", ("  hearsay/" + peer).c_str());
        for (int i = 0; i < 4; ++i) {
            if (v[i] > 0) std::printf(" %*.2fx", i == 0 ? 11 : 13, hearsay[i] / v[i]);
            else std::printf(" %*s", i == 0 ? 12 : 14, "-");
        }
        std::printf("\n");
    }
    for (const auto& [peer, error] : m.peers["errors"].toObject()) {
        std::printf("  %-30s not measured: %s\n", peer.c_str(), error.toString().c_str());
    }
}

void printCacheTable(const ModelReport& m) {
    std::printf("\n%s: cache table (greedy, one beam; ms per decoded token; caches from cacheStats())\n", m.name.c_str());
    std::printf("  %6s %4s %6s %10s %12s %13s %13s %13s\n", "length", "win", "caches", "ms/token", "peak RSS MiB",
                "self MiB alloc", "self MiB used", "cross MiB");
    for (const CacheRunResult& r : m.rows) {
        std::printf("  %6d %4d %6s %10.3f %12.1f %13.2f %13.2f %13.2f\n", r.length, r.windows,
                    std::string(cacheModeName(r.mode)).c_str(), r.msPerToken, mib(r.peakResidentBytes), mib(r.selfAllocatedBytes),
                    mib(r.selfInUseBytes), mib(r.crossAllocatedBytes));
    }
}

// The folder holding scripts/bench (the peers' Python scripts), found at run time, never compiled
// in: HEARSAY_BENCH_ROOT when set; else the nearest folder above the executable that holds
// scripts/bench/peers.py (a build tree: build/bin/..); else the install's share/hearsay
// (PREFIX/bin/../share/hearsay). Empty when none holds them.
fs::path sourceTree() {
    std::error_code ec;
    auto holds = [&](const fs::path& dir) { return fs::exists(dir / "scripts/bench/peers.py", ec); };
    if (const char* root = std::getenv("HEARSAY_BENCH_ROOT"); root && *root && holds(root)) return root;
    const fs::path bin = fs::path(currentExecutablePath()).parent_path();
    fs::path dir = bin;
    for (int up = 0; up < 4 && !dir.empty() && dir != dir.root_path(); ++up, dir = dir.parent_path()) {
        if (holds(dir)) return dir;
    }
    if (holds(bin.parent_path() / "share/hearsay")) return bin.parent_path() / "share/hearsay";
    return {};
}

// The peers to run: the given list, or transformers' static cache alone on the GPU (the peer the
// GPU targets are set against), or every peer of peers.py on the CPU.
std::string peersToRun(const Settings& s) {
    if (!s.peersList.empty()) return s.peersList;
    return s.backend == BackendKind::Cuda ? "transformers-static" : "";
}

// Whether the model ran on the CUDA backend (asked for, or picked by Auto: its name says so).
bool ranOnCuda(const Settings& s, const ModelReport& m) {
    return s.backend == BackendKind::Cuda || m.backendName.rfind("cuda", 0) == 0;
}

constexpr const char* kNoScripts =
    "the bench's peer scripts (scripts/bench/peers.py) are not in a folder above hearsay-cli nor in its "
    "share/hearsay; set HEARSAY_BENCH_ROOT to the folder that holds scripts/bench";

Result<Json> runPeers(const Settings& s, const ModelReport& m) {
    const fs::path source = sourceTree();
    if (source.empty()) return makeError(kNoScripts);
    std::error_code ec;
    const fs::path venv = source / ".venv-bench/bin/python";
    const std::string python = !s.python.empty() ? s.python : fs::exists(venv, ec) ? venv.string() : "python3";
    const fs::path out = fs::path(s.workDir) / (m.name + "-peers.json");
    fs::remove(out, ec);  // a stale file from an earlier run must not pass for this run's results
    std::vector<std::string> argv = {python, (source / "scripts/bench/peers.py").string(), "--hf", m.hfPath, "--threads",
                                     std::to_string(s.threads), "--repeats", std::to_string(s.work.repeats), "--warmup",
                                     std::to_string(s.work.warmup), "--audio", s.audio, "--json", out.string(),
                                     "--decode-steps", std::to_string(s.work.decodeSteps), "--batch-steps",
                                     std::to_string(s.work.batchSteps), "--batch-beams", std::to_string(s.work.batchBeams),
                                     "--prompt-tokens", std::to_string(s.work.promptTokens), "--prompt-runs",
                                     std::to_string(s.work.promptRuns)};
    if (ranOnCuda(s, m)) {  // the same GPU, in the precision Hearsay ran
        argv.insert(argv.end(), {"--device", "cuda", "--dtype", s.precision == Precision::Fp32 ? "float32" : "float16"});
    }
    if (s.peersCompile) argv.insert(argv.end(), {"--compile", "--compile-timeout", std::to_string(s.peersCompileTimeout)});
    if (!m.ggmlPath.empty()) argv.insert(argv.end(), {"--ggml", m.ggmlPath});
    const std::string list = peersToRun(s);
    if (!list.empty()) argv.insert(argv.end(), {"--peers", list});
    // faster-whisper reads a CTranslate2 float32 conversion of the same weights; written by our
    // own converter, so that peer needs neither transformers nor torch.
    if (!m.hfPath.empty() && (list.empty() || list.find("faster-whisper") != std::string::npos)) {
        const fs::path ct2 = fs::path(m.hfPath).parent_path() / (fs::path(m.hfPath).filename().string() + "-ct2");
        if (!fs::exists(ct2 / "model.bin", ec)) {
            std::fprintf(stderr, "bench: converting %s to CTranslate2 float32\n", m.hfPath.c_str());
            auto made = runSelf({"convert", "--to", "ct2", "--dtype", "f32", "--force", m.hfPath, ct2.string()});
            if (!made) return makeError("the CTranslate2 conversion for faster-whisper failed: " + made.message());
        }
        argv.insert(argv.end(), {"--ct2", ct2.string()});
    }
    std::fprintf(stderr, "bench: running peers for %s\n", m.name.c_str());
    auto run = runProcess(argv);
    if (!run) return run.error();
    auto text = readTextFile(out);
    if (!text) return makeError("peers.py wrote no results (exit " + std::to_string(run->exitCode) + "): " + text.message());
    return Json::parse(text.value());
}

// The peaks the floors divide by: measured by the probe unless given on the command line.
// CUDA: the GPU probe (kernels/peak_rates.h), with the spec sheet's figures for known devices;
// `gpu` gets the device's description. CPU: the SGEMM and read probe.
PeakRates peakRates(const Settings& s, std::optional<GpuInfo>* gpu = nullptr) {
    PeakRates peak;
    if (s.backend == BackendKind::Cuda) {
#ifdef HEARSAY_HAVE_CUDA
        if (s.peakGflops <= 0 || s.peakGbs <= 0) {
            std::fprintf(stderr, "bench: measuring the GPU's attainable peaks\n");
            auto probe = cuda::measureGpuPeakRates(0);
            if (probe) {
                peak.flopsPerSecond = probe->flopsPerSecond;
                peak.flopsSource = probe->flopsSource;
                peak.bytesPerSecond = probe->bytesPerSecond;
                peak.bytesSource = probe->bytesSource;
                if (gpu) *gpu = probe->gpu;
            } else {
                std::fprintf(stderr, "bench: %s\n", probe.message().c_str());
                peak.flopsSource = peak.bytesSource = "not measured: " + probe.message();
            }
        }
        if (gpu && !*gpu) {
            if (auto info = cuda::describeGpu(0)) *gpu = info.value();
        }
#endif
        if (gpu && *gpu) {
            if (auto spec = lookupGpuSpec((*gpu)->name)) {
                peak.specFlopsPerSecond = spec->fp16TensorFlops;
                peak.specBytesPerSecond = spec->memoryBytesPerSecond;
                peak.specSource = spec->model + ": " + spec->source;
            }
        }
    } else if (s.peakGflops <= 0 || s.peakGbs <= 0) {
        std::fprintf(stderr, "bench: measuring the machine's attainable peaks\n");
        peak = measurePeakRates(s.threads);
    }
    if (s.peakGflops > 0) {
        peak.flopsPerSecond = s.peakGflops * 1e9;
        peak.flopsSource = "given (--peak-gflops)";
    }
    if (s.peakGbs > 0) {
        peak.bytesPerSecond = s.peakGbs * 1e9;
        peak.bytesSource = "given (--peak-gbs)";
    }
    return peak;
}

// --floors-only: the physical floors of the fixed work for each size, nothing run.
int printFloorsOnly(const Settings& s) {
    std::optional<GpuInfo> gpu;
    const PeakRates peak = peakRates(s, &gpu);
    if (peak.flopsPerSecond <= 0 || peak.bytesPerSecond <= 0) {
        return fail("no peaks to compute floors with (" + peak.flopsSource + "); give --peak-gflops and --peak-gbs", 1);
    }
    const ElementBytes bytes = floorElementBytes(s.backend, s.dtype, s.precision);
    std::printf("floors of the fixed work at %.1f GFLOP/s (%s) and %.1f GB/s (%s), %g-byte weights, %g-byte self "
                "cache, %g-byte cross cache\n",
                peak.flopsPerSecond / 1e9, peak.flopsSource.c_str(), peak.bytesPerSecond / 1e9, peak.bytesSource.c_str(),
                bytes.weights, bytes.caches, bytes.crossCache);
    std::printf("  %-16s %12s %12s %14s %14s %14s %14s\n", "size", "enc GFLOP", "encoder ms", "MB/token", "decode ms/tok",
                "batch ms/tok", "prompt ms/tok");
    Json::Array list;
    for (const auto& size : s.sizes) {
        auto config = WhisperConfig::fromName(size);
        if (!config) return fail(config.message());
        const WorkFloors f = computeFloors(config.value(), s.work, peak, bytes);
        std::printf("  %-16s %12.1f %12.2f %14.1f %14.3f %14.3f %14.4f\n", size.c_str(), f.encoderFlops / 1e9, f.encoderMs,
                    f.decodeBytesPerToken / 1e6, f.decodeMsPerToken, f.batchMsPerToken, f.promptMsPerToken);
        Json j = toJson(f);
        j["name"] = size;
        list.push_back(j);
    }
    if (!s.json.empty()) {
        Json doc;
        doc["schema"] = "hearsay-bench-floors/1";
        doc["date"] = utcTimestamp();
        MachineInfo machine = collectMachineInfo();
        machine.gpu = gpu;
        doc["machine"] = toJson(machine);
        doc["peaks"] = toJson(peak);
        doc["elementBytes"]["weights"] = bytes.weights;
        doc["elementBytes"]["caches"] = bytes.caches;
        doc["elementBytes"]["crossCache"] = bytes.crossCache;
        doc["work"] = toJson(s.work);
        doc["floors"] = Json(std::move(list));
        std::ofstream out(s.json);
        out << doc.dump(1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

// --real-files: every program transcribes every file with every model and beam size, rounds
// interleaved; prints one table per case and writes them all to --json.
int runRealFileSection(const Settings& s, const std::vector<std::string>& args) {
    if (s.realModels.empty()) return fail("--real-files needs --real-models (CTranslate2 directories)");
    const fs::path source = sourceTree();
    if (source.empty()) return fail(kNoScripts, 1);
    std::error_code ec;
    const fs::path venv = source / ".venv-bench/bin/python";
    RealFilePlan plan;
    plan.hearsay = currentExecutablePath();
    plan.python = !s.python.empty() ? s.python : fs::exists(venv, ec) ? venv.string() : "python3";
    plan.peersScript = (source / "scripts/bench/real_peers.py").string();
    plan.whisperCli = !s.whisperCli.empty() ? s.whisperCli : (source / "build-whispercpp/build/bin/whisper-cli").string();
    plan.threads = s.threads;
    plan.language = s.language;
    plan.programs = s.realPrograms;
    MachineInfo machine = collectMachineInfo();
    const std::string date = utcTimestamp();
    std::printf("hearsay bench, real files, %s\n  machine: %s, %d CPUs (%s), %.1f GiB, load average %.2f\n  build: %s, %s, commit %s\n",
                date.c_str(), machine.cpuModel.c_str(), machine.logicalCpus, machine.cpuFlags.c_str(),
                double(machine.memoryBytes) / (1024.0 * 1024.0 * 1024.0), machine.loadAverage, HEARSAY_BUILD_TYPE,
                compilerDescription().c_str(), HEARSAY_GIT_COMMIT);
    Json::Array cases;
    for (const std::string& model : s.realModels) {
        const std::string name = fs::path(model).filename().string().empty() ? fs::path(model).parent_path().filename().string()
                                                                              : fs::path(model).filename().string();
        plan.ct2 = model;
        // whisper.cpp and hearsay-q8_0 read conversions of the same directory.
        for (auto [dtype, target] : {std::pair{"f16", &plan.ggmlF16}, std::pair{"q8_0", &plan.ggmlQ8}}) {
            const fs::path out = fs::path(s.workDir) / (name + "-" + dtype + ".ggml.bin");
            *target = out.string();
            if (fs::exists(out, ec)) continue;
            fs::create_directories(s.workDir, ec);
            std::fprintf(stderr, "bench: converting %s to ggml %s\n", model.c_str(), dtype);
            auto made = runSelf({"convert", "--to", "ggml", "--dtype", dtype, model, out.string()});
            if (!made) return fail(made.message(), 1);
        }
        {
            auto engine = Engine::load(model, EngineOptions{BackendKind::Cpu, {}});
            if (!engine) return fail(model + ": " + engine.message(), 1);
            plan.eot = engine->tokenizer().special().eot;
        }
        for (const std::string& audio : s.realFiles) {
            for (int beam : s.realBeams) {
                plan.audio = audio;
                plan.beamSize = beam;
                auto programs = realFilePrograms(plan);
                if (!programs) return fail(programs.message());
                const RealFileCase c = runRealFileCase(name, audio, beam, programs.value(), s.realRounds,
                                                       (fs::path(s.workDir) / "real-runs").string());
                std::printf("%s", formatRealFileCase(c).c_str());
                std::fflush(stdout);
                cases.push_back(toJson(c));
            }
        }
    }
    if (!s.json.empty()) {
        Json doc;
        doc["schema"] = "hearsay-bench-real/1";
        doc["date"] = date;
        doc["command"] = [&] {
            std::string c = "hearsay-cli bench";
            for (const auto& a : args) c += " " + a;
            return c;
        }();
        doc["machine"] = toJson(machine);
        doc["machine"]["loadAverageAtEnd"] = collectMachineInfo().loadAverage;
        BuildInfo build;
        build.buildType = HEARSAY_BUILD_TYPE;
        build.compiler = compilerDescription();
        build.commit = HEARSAY_GIT_COMMIT;
        doc["build"] = toJson(build);
        doc["threads"] = s.threads;
        doc["rounds"] = s.realRounds;
        doc["cases"] = Json(std::move(cases));
        std::ofstream out(s.json);
        out << doc.dump(1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

// Whether the peers to run read a model file of `format`: whisper.cpp reads ggml, all others hf.
bool peersNeed(const Settings& s, const std::string& format) {
    const std::string list = peersToRun(s);
    if (list.empty()) return true;  // all of peers.py
    for (const auto& peer : splitList(list)) {
        if ((peer == "whisper.cpp") == (format == "ggml")) return true;
    }
    return false;
}

Result<Settings> parseSettings(const Options& o) {
    Settings s;
    s.sizes = splitList(o.value("sizes", "tiny,base"));
    s.models = splitList(o.value("model", ""));
    s.format = o.value("format", s.format);
    if (s.format != "ggml" && s.format != "hf") return makeError("--format must be ggml or hf, got '" + s.format + "'");
    s.dtype = o.value("dtype", s.dtype);
    if (s.dtype == "fp32") s.dtype = "f32";
    if (s.dtype == "fp16") s.dtype = "f16";
    if (s.dtype != "f32" && s.dtype != "f16") return makeError("--dtype must be f32 or f16, got '" + s.dtype + "'");
    s.seed = o.value("seed", s.seed);
    auto backend = parseBackendKind(o.value("backend", "cpu"));
    if (!backend) return backend.error();
    s.backend = backend.value();
    auto precision = parsePrecision(o.value("precision", "fp16"));
    if (!precision) return precision.error();
    s.precision = precision.value();
    if (o.value("threads")) {
        auto t = parsePositive("--threads", *o.value("threads"));
        if (!t) return t.error();
        s.threads = t.value();
    } else {
        s.threads = collectMachineInfo().logicalCpus;
    }
    struct IntOption {
        const char* name;
        int* out;
        bool zeroAllowed;
    };
    for (const IntOption& opt : {IntOption{"repeats", &s.work.repeats, false}, IntOption{"warmup", &s.work.warmup, true},
                                 IntOption{"decode-steps", &s.work.decodeSteps, false},
                                 IntOption{"batch-steps", &s.work.batchSteps, false},
                                 IntOption{"batch-beams", &s.work.batchBeams, false},
                                 IntOption{"prompt-tokens", &s.work.promptTokens, false},
                                 IntOption{"prompt-runs", &s.work.promptRuns, false}}) {
        if (auto v = o.value(opt.name)) {
            if (opt.zeroAllowed && *v == "0") {
                *opt.out = 0;
                continue;
            }
            auto n = parsePositive(std::string("--") + opt.name, *v);
            if (!n) return n.error();
            *opt.out = n.value();
        }
    }
    if (auto v = o.value("lengths")) {
        s.lengths.clear();
        for (const auto& item : splitList(*v)) {
            auto n = parsePositive("--lengths", item);
            if (!n) return n.error();
            s.lengths.push_back(n.value());
        }
    }
    if (auto v = o.value("modes")) {
        s.modes.clear();
        for (const auto& item : splitList(*v)) {
            CacheMode m;
            if (!parseCacheMode(item, m)) return makeError("--modes: unknown '" + item + "' (both, self, cross, none)");
            s.modes.push_back(m);
        }
    }
    s.cacheTable = !o.has("no-cache-table");
    s.stepGraphs = !o.has("no-step-graphs");
    s.floors = !o.has("no-floors");
    s.floorsOnly = o.has("floors-only");
    for (auto [name, out] : {std::pair{"peak-gflops", &s.peakGflops}, std::pair{"peak-gbs", &s.peakGbs}}) {
        auto v = o.doubleValue(name, 0.0);
        if (!v || v.value() < 0) return makeError(std::string("--") + name + " expects a positive number");
        *out = v.value();
    }
    s.peers = o.has("peers");
    s.peersList = o.value("peers-list", "");
    s.peersCompile = o.has("peers-compile");
    if (auto v = o.value("peers-compile-timeout")) {
        auto n = parsePositive("--peers-compile-timeout", *v);
        if (!n) return n.error();
        s.peersCompileTimeout = n.value();
    }
    s.python = o.value("python", "");
    s.audio = o.value("audio", s.audio);
    s.workDir = o.value("work-dir", s.workDir);
    s.json = o.value("json", "");
    s.realFiles = splitList(o.value("real-files", ""));
    s.realModels = splitList(o.value("real-models", ""));
    if (auto v = o.value("real-beams")) {
        s.realBeams.clear();
        for (const auto& item : splitList(*v)) {
            auto n = parsePositive("--real-beams", item);
            if (!n) return n.error();
            s.realBeams.push_back(n.value());
        }
    }
    if (auto v = o.value("real-rounds")) {
        auto n = parsePositive("--real-rounds", *v);
        if (!n) return n.error();
        s.realRounds = n.value();
    }
    if (auto v = o.value("real-programs")) s.realPrograms = splitList(*v);
    s.whisperCli = o.value("whisper-cli", "");
    s.language = o.value("language", s.language);
    s.streamingFiles = splitList(o.value("streaming", ""));
    if (auto v = o.value("audio-context")) {
        s.audioContexts.clear();
        for (const std::string& item : splitList(*v)) {
            if (item == "full") {
                s.audioContexts.push_back(-1.0);
                continue;
            }
            char* end = nullptr;
            const double padding = std::strtod(item.c_str(), &end);
            if (end == item.c_str() || *end != '\0' || !(padding >= 0.0 && padding < 30.0)) {
                return makeError("--audio-context takes full or paddings in seconds (0 to 30), got '" + item + "'");
            }
            s.audioContexts.push_back(padding);
        }
    }
    for (auto [name, field] : {std::pair{"speed", &s.speed}, std::pair{"step", &s.step}}) {
        auto v = o.doubleValue(name, *field);
        if (!v) return v.error();
        if (!(v.value() > 0.0)) return makeError(std::string("--") + name + " must be positive");
        *field = v.value();
    }
    return s;
}

// --streaming: every file through a live session of every model, at --speed.
int runStreamingSection(const Settings& s) {
#ifdef HEARSAY_HAVE_STREAMING
    if (s.realModels.empty()) return fail("--streaming needs --real-models (the models to stream with)");
    std::vector<StreamingBenchCase> cases;
    Json report = Json(Json::Array{});
    const MachineInfo machine = collectMachineInfo();
    std::printf("hearsay bench, streaming, %s\n  machine: %s, %d CPUs (%s), %.1f GiB, load average %.2f\n  build: %s, %s, commit %s, "
                "%d threads\n\n",
                utcTimestamp().c_str(), machine.cpuModel.c_str(), machine.logicalCpus, machine.cpuFlags.c_str(),
                double(machine.memoryBytes) / (1024.0 * 1024.0 * 1024.0), machine.loadAverage, HEARSAY_BUILD_TYPE,
                compilerDescription().c_str(), HEARSAY_GIT_COMMIT, s.threads);
    for (const std::string& model : s.realModels) {
        auto engine = Engine::load(model, EngineOptions{BackendKind::Cpu, BackendOptions{s.threads, 0}});
        if (!engine) return fail(engine.message());
        for (const std::string& audio : s.streamingFiles)
        for (double padding : s.audioContexts) {
            StreamingOptions options;
            options.audioContextPaddingSeconds = padding;
            options.stepSeconds = s.step;
            options.decoding.language = engine->tokenizer().isMultilingual() ? s.language : "";
            std::fprintf(stderr, "hearsay-cli bench: streaming %s with %s at %.1fx\n", audio.c_str(), model.c_str(), s.speed);
            auto c = runStreamingBenchmark(engine.value(), fs::path(model).filename().string(), audio, options, s.speed);
            if (!c) return fail(c.message());
            report.push_back(toJson(c.value()));
            cases.push_back(std::move(c).value());
        }
    }
    std::printf("%s", formatStreamingBenchmark(cases).c_str());
    if (!s.json.empty()) {
        Json doc;
        doc["machine"] = toJson(machine);
        doc["streaming"] = report;
        std::ofstream(s.json) << doc.dump(2) << "\n";
    }
    return 0;
#else
    (void)s;
    return fail("this build has no streaming (an engine-only build)");
#endif
}

int runBench(const std::vector<std::string>& args) {
    auto options = Options::parse(args,
                                  {"sizes", "model", "format", "dtype", "seed", "backend", "precision", "threads", "repeats", "warmup",
                                   "lengths", "modes", "peak-gflops", "peak-gbs", "peers-list", "peers-compile-timeout", "python", "audio", "work-dir", "json", "decode-steps",
                                   "batch-steps", "batch-beams", "prompt-tokens", "prompt-runs", "length", "mode",
                                   "real-files", "real-models", "real-beams", "real-rounds", "real-programs", "whisper-cli",
                                   "language", "beam-size", "name", "streaming", "speed", "step", "audio-context"},
                                  {"help", "no-cache-table", "no-floors", "floors-only", "peers", "peers-compile", "child-cache-run",
                                   "no-step-graphs", "child-real-file"});
    if (!options) return fail(options.message() + "\n" + kUsage);
    if (options->has("help")) {
        std::printf("%s", kUsage);
        return 0;
    }
    auto parsed = parseSettings(options.value());
    if (!parsed) return fail(parsed.message());
    const Settings& s = parsed.value();
    if (options->has("child-cache-run")) return runChild(options.value(), s);
    if (options->has("child-real-file")) return runRealFileChild(options.value(), s);
    if (!s.realFiles.empty()) return runRealFileSection(s, args);
    if (!s.streamingFiles.empty()) return runStreamingSection(s);

    if (s.floorsOnly) return printFloorsOnly(s);

    // Which models: explicit paths, or made test models of the named sizes.
    std::vector<ModelReport> models;
    for (const auto& path : s.models) {
        ModelReport m;
        m.name = fs::path(path).filename().string();
        m.path = path;
        (fs::is_directory(path) ? m.hfPath : m.ggmlPath) = path;
        models.push_back(m);
    }
    if (s.models.empty()) {
        for (const auto& size : s.sizes) {
            ModelReport m;
            m.name = size;
            auto path = ensureTestModel(s, size, s.format);
            if (!path) return fail(path.message(), 1);
            m.path = path.value();
            (s.format == "hf" ? m.hfPath : m.ggmlPath) = m.path;
            if (s.peers && peersNeed(s, s.format == "hf" ? "ggml" : "hf")) {  // the weights are bit-identical (same seed)
                auto other = ensureTestModel(s, size, s.format == "hf" ? "ggml" : "hf");
                if (!other) return fail(other.message(), 1);
                (s.format == "hf" ? m.ggmlPath : m.hfPath) = other.value();
            }
            models.push_back(m);
        }
    }

    MachineInfo machine = collectMachineInfo();
    BuildInfo build;
    build.buildType = HEARSAY_BUILD_TYPE;
    build.compiler = compilerDescription();
    build.commit = HEARSAY_GIT_COMMIT;
#ifdef HEARSAY_HAVE_CUDA
    build.cuda = true;
#endif
    const std::string date = utcTimestamp();
    std::optional<GpuInfo> gpu;
    PeakRates peak;
    if (s.floors) {
        peak = peakRates(s, &gpu);
    }
#ifdef HEARSAY_HAVE_CUDA
    if (!gpu && s.backend == BackendKind::Cuda) {
        if (auto info = cuda::describeGpu(0)) gpu = info.value();
    }
#endif
    machine.gpu = gpu;
    // Without peaks (a probe that failed and none given) there is nothing to divide by.
    const bool haveFloors = s.floors && peak.flopsPerSecond > 0 && peak.bytesPerSecond > 0;
    if (s.floors && !haveFloors) std::fprintf(stderr, "bench: no floors: the peaks are unknown (give --peak-gflops and --peak-gbs)\n");
    std::printf("hearsay bench, %s\n  machine: %s, %d CPUs (%s), %.1f GiB, load average %.2f%s%s\n  build: %s, %s, commit %s\n", date.c_str(),
                machine.cpuModel.c_str(), machine.logicalCpus, machine.cpuFlags.c_str(),
                double(machine.memoryBytes) / (1024.0 * 1024.0 * 1024.0), machine.loadAverage, machine.gpuName.empty() ? "" : ", GPU ",
                machine.gpuName.c_str(), build.buildType.c_str(), build.compiler.c_str(), build.commit.c_str());
    if (gpu) {
        std::printf("  GPU %d: %s, sm_%d%d, %d SMs, %.1f GiB, SM clock %.0f MHz, memory clock %.0f MHz x %d bits, driver %d, runtime %d\n",
                    gpu->index, gpu->name.c_str(), gpu->computeMajor, gpu->computeMinor, gpu->multiprocessors,
                    double(gpu->memoryBytes) / (1024.0 * 1024.0 * 1024.0), gpu->smClockMhz, gpu->memoryClockMhz,
                    gpu->memoryBusBits, gpu->driverVersion, gpu->runtimeVersion);
    }
    if (haveFloors) {
        std::printf("  peaks: %.1f GFLOP/s (%s); %.1f GB/s (%s)\n", peak.flopsPerSecond / 1e9, peak.flopsSource.c_str(),
                    peak.bytesPerSecond / 1e9, peak.bytesSource.c_str());
        if (peak.specBytesPerSecond > 0) {
            std::printf("  spec sheet: %.1f TFLOP/s fp16 dense, %.2f TB/s (%s); measured %.0f%% and %.0f%% of them\n",
                        peak.specFlopsPerSecond / 1e12, peak.specBytesPerSecond / 1e12, peak.specSource.c_str(),
                        100.0 * peak.flopsPerSecond / peak.specFlopsPerSecond, 100.0 * peak.bytesPerSecond / peak.specBytesPerSecond);
        }
    }

    for (ModelReport& m : models) {
        std::fprintf(stderr, "bench: %s: fixed work\n", m.name.c_str());
        {  // the engine lives only for the fixed work: the children then start from a quiet machine
            SessionOptions sessionOptions;
            sessionOptions.maxBeams = s.work.batchBeams;
            auto engine = openEngine(m.path, s.backend, s.precision, s.threads, s.stepGraphs, sessionOptions);
            if (!engine) return fail(m.path + ": " + engine.message(), 1);
            m.config = engine->engine.model().config();
            m.weightBytes = engine->engine.model().weightBytes();
            m.backendName = engine->engine.backend().name();
            auto mel = benchWindow(s.audio, m.config.nMels);
            if (!mel) return fail(mel.message(), 1);
            auto fixed = runFixedWork(*engine->session, mel.value(), s.work);
            if (!fixed) return fail(m.name + ": " + fixed.message(), 1);
            m.fixed = fixed.value();
            // Proof of the path the decode steps took (counts of the last run's window).
            const SessionTimings t = engine->session->timings();
            m.stepOperations = t.stepOperations;
            std::fprintf(stderr,
                         "bench: %s: step graphs %s: %d recordings (the latest of %zu operations), %d replays of %d "
                         "decode calls (last run)\n",
                         m.name.c_str(), s.stepGraphs ? "on" : "off", t.stepRecordings, t.stepOperations, t.stepReplays,
                         t.decodeCalls);
        }
        if (haveFloors) {
            // Element bytes as the backend that ran holds weights and caches (Auto resolved by its name).
            const BackendKind ran = ranOnCuda(s, m) ? BackendKind::Cuda : BackendKind::Cpu;
            m.elementBytes = floorElementBytes(ran, s.dtype, s.precision);
            m.floors = computeFloors(m.config, s.work, peak, m.elementBytes);
        }

        if (s.cacheTable) {
            for (int length : s.lengths) {
                for (CacheMode mode : s.modes) {
                    std::fprintf(stderr, "bench: %s: cache table, length %d, caches %s\n", m.name.c_str(), length,
                                 std::string(cacheModeName(mode)).c_str());
                    std::vector<std::string> child = {"bench", "--child-cache-run", "--model", m.path, "--length",
                                                      std::to_string(length), "--mode", std::string(cacheModeName(mode)),
                                                      "--backend", std::string(backendKindName(s.backend)), "--precision",
                                                      std::string(precisionName(s.precision)), "--threads",
                                                      std::to_string(s.threads), "--audio", s.audio};
                    if (!s.stepGraphs) child.push_back("--no-step-graphs");
                    auto out = runSelf(child);
                    if (!out) return fail(out.message(), 1);
                    const std::string text = out.value();
                    const size_t lineStart = text.find_last_of('\n', text.size() > 1 ? text.size() - 2 : 0);
                    auto json = Json::parse(lineStart == std::string::npos ? text : text.substr(lineStart + 1));
                    if (!json) return fail("child output is not JSON: " + json.message(), 1);
                    auto row = cacheRunFromJson(json.value());
                    if (!row) return fail(row.message(), 1);
                    m.rows.push_back(row.value());
                }
            }
        }
        if (s.peers) {
            auto peers = m.hfPath.empty() ? Result<Json>(makeError("peers need a Hugging Face checkpoint (use --sizes)"))
                                          : runPeers(s, m);
            if (peers) {
                m.peers = peers.value();
            } else {
                Json doc;
                doc["peers"] = Json(Json::Object{});
                doc["errors"]["all"] = peers.message();
                m.peers = doc;
            }
        }
        printFixedWork(m, s, haveFloors);
        if (s.cacheTable) printCacheTable(m);
        std::fflush(stdout);
    }

    if (!s.json.empty()) {
        Json doc;
        doc["schema"] = "hearsay-bench/1";
        doc["date"] = date;
        doc["command"] = [&] {
            std::string c = "hearsay-cli bench";
            for (const auto& a : args) c += " " + a;
            return c;
        }();
        doc["machine"] = toJson(machine);
        doc["machine"]["loadAverageAtEnd"] = collectMachineInfo().loadAverage;
        doc["build"] = toJson(build);
        Json settings;
        settings["backend"] = std::string(backendKindName(s.backend));
        settings["precision"] = std::string(precisionName(s.precision));
        settings["threads"] = s.threads;
        settings["dtype"] = s.dtype;
        settings["format"] = s.format;
        settings["seed"] = s.seed;
        settings["audio"] = s.audio;
        doc["settings"] = settings;
        doc["work"] = toJson(s.work);
        doc["peaks"] = haveFloors ? toJson(peak) : Json();
        Json::Array list;
        for (const ModelReport& m : models) {
            Json j;
            j["name"] = m.name;
            j["path"] = m.path;
            j["backend"] = m.backendName;
            if (m.stepOperations > 0) j["stepOperations"] = m.stepOperations;
            j["weightBytes"] = m.weightBytes;
            Json dims;
            dims["nMels"] = m.config.nMels;
            dims["nAudioState"] = m.config.nAudioState;
            dims["nAudioLayer"] = m.config.nAudioLayer;
            dims["nAudioHead"] = m.config.nAudioHead;
            dims["nTextState"] = m.config.nTextState;
            dims["nTextLayer"] = m.config.nTextLayer;
            dims["nTextHead"] = m.config.nTextHead;
            dims["nVocab"] = m.config.nVocab;
            dims["nTextCtx"] = m.config.nTextCtx;
            dims["nAudioCtx"] = m.config.nAudioCtx;
            j["dims"] = dims;
            j["fixedWork"] = toJson(m.fixed);
            j["floors"] = haveFloors ? toJson(m.floors) : Json();
            if (haveFloors) {
                j["elementBytes"]["weights"] = m.elementBytes.weights;
                j["elementBytes"]["caches"] = m.elementBytes.caches;
                j["elementBytes"]["crossCache"] = m.elementBytes.crossCache;
            }
            Json::Array rows;
            for (const auto& r : m.rows) {
                Json row = toJson(r);
                Json::Array windows;
                for (const WindowPlan& w : planDecodeLength(m.config, r.length)) {
                    Json wj;
                    wj["promptTokens"] = w.promptTokens;
                    wj["sotTokens"] = w.sotTokens;
                    wj["sampledTokens"] = w.sampledTokens;
                    windows.push_back(wj);
                }
                row["windowPlan"] = Json(std::move(windows));
                rows.push_back(row);
            }
            j["cacheTable"] = Json(std::move(rows));
            j["peers"] = m.peers;
            if (!m.peers.isNull()) {
                Json ratios;
                static const char* figures[4] = {"encoderMs", "decodeMsPerToken", "batchMsPerToken", "promptMsPerToken"};
                const double hearsay[4] = {m.fixed.encoderMs.median(), m.fixed.decodeMsPerToken.median(),
                                           m.fixed.batchMsPerToken.median(), m.fixed.promptMsPerToken.median()};
                for (const auto& [peer, data] : m.peers["peers"].toObject()) {
                    for (int i = 0; i < 4; ++i) {
                        const double v = data["figures"][figures[i]]["median"].toDouble(0.0);
                        ratios[peer][figures[i]] = v > 0 ? Json(hearsay[i] / v) : Json();
                    }
                }
                j["ratios"] = ratios;
            }
            list.push_back(j);
        }
        doc["models"] = Json(std::move(list));
        std::ofstream out(s.json);
        out << doc.dump(1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(bench, "bench", "benchmark: fixed work, cache table, floors, peers", runBench);

} // namespace hearsay::cli
