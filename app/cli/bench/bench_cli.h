// hearsay-cli bench, in pieces (app/cli/bench/*.cpp, the command itself in app/cli/cmd_bench.cpp):
// the settings parsed from its options, the engine it drives, the report of one model, and the
// functions of each section. Internal to the CLI.
#pragma once

#include "app/cli/options.h"
#include "core/backend/backend.h"
#include "core/backend/gpu_info.h"
#include "core/bench/bench_input.h"
#include "core/bench/cache_run.h"
#include "core/bench/fixed_work.h"
#include "core/bench/gpu_specs.h"
#include "core/bench/machine_info.h"
#include "core/bench/roofline.h"
#include "core/engine/engine.h"
#include "core/model/whisper_model.h"
#include "core/util/json_text.h"
#include "core/util/result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hearsay::cli::bench {

namespace fs = std::filesystem;

// The options of `hearsay-cli bench` (bench_settings.cpp), read by parseSettings.
void declareOptions(CLI::App& command);

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
    bool opProfile = false;    // --op-profile: a decode step's and the encoder's time op by op
    bool floors = true;
    bool floorsOnly = false;
    double peakGflops = 0.0;   // assumed peaks instead of the probe's, when given
    double peakGbs = 0.0;
    bool peers = false;
    std::string peersList;
    int rounds = 1;            // --rounds: Hearsay's fixed work and the peers' in turn, this many times each
    int encoderPairs = 0;      // --encoder-pairs: only the encoders, this many pairs taking turns (0: not run)
    bool peersCompile = false;
    int peersCompileTimeout = 300;
    std::string python;
    std::string audio;         // --audio, else the shared data's speech-30s-a.wav (app/cli/shared_data.h)
    std::string audioMissing;  // why there is no `audio` (empty when there is one)
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
    // Every combination of these lists is one variant of the streaming settings; an empty list
    // means the session's default.
    std::vector<double> steps;                   // seconds
    std::vector<double> audioContexts = {-1.0};  // < 0: full
    std::vector<bool> wordTimings = {true};      // streaming: word alignment on and/or off
    std::vector<std::string> commits;            // commit policies by name (agreement, alignatt, utterance)
    std::vector<int> minSilencesMs;              // the silence that ends an utterance
    std::vector<int> streamingBeams = {1};       // beam sizes (1: greedy)
};

// One engine (model, backend, weights) and the one session the bench drives on it.
struct BenchEngine {
    Engine engine;
    std::unique_ptr<ControlledSession> session;
};

// One round of --rounds: Hearsay's fixed work and the peers', in the order `peersFirst` says, and
// the probes read beside them (the same readings as a run without rounds makes, each round its own).
struct PeerRound {
    bool peersFirst = false;
    FixedWorkResult fixed;
    nlohmann::json peers;
    nlohmann::json ratios;             // ratiosAgainstPeers of this round's two programs' runs
    Samples sgemmProbeFlopsPerSecond;  // before Hearsay's runs, before the peers ran, after (CPU, probed)
    Samples peersProbeBytesPerSecond;  // before the peers ran, after (CPU, probed)
};

struct ModelReport {
    std::string name;
    std::string path;
    std::string hfPath;    // for the peers
    std::string ggmlPath;
    WhisperConfig config;
    size_t weightBytes = 0;
    std::string weightDtype;  // as the file stores its matrices (the token embedding's type): the floors' bytes
    std::string backendName;
    size_t stepOperations = 0;  // of the decode step recording (CUDA: graph nodes per token)
    FixedWorkResult fixed;
    std::optional<DecodeProfile> decodeProfile;  // --op-profile
    std::optional<EncoderProfile> encoderProfile;  // --op-profile
    WorkFloors floors;
    Samples decodeAgainstFloorByRun;  // each timed decode run over its floor at the probe read after it
    PeakRates floorPeaks;       // the peaks the floors divide by: the run's, with the bandwidth read beside the decode where probed
    Samples peersProbeBytesPerSecond;  // the read probe just before and just after the peers ran (CPU, probed)
    // The SGEMM probe (measureSgemmRate) just before Hearsay's fixed work and, with --peers, just
    // before and just after the peers ran (CPU, probed): the encoders' ratios move with it.
    Samples sgemmProbeFlopsPerSecond;
    ElementBytes elementBytes;  // what the floors assumed
    std::vector<CacheRunResult> rows;
    // peers.py's document (an object), null when not run; with --rounds, every round's merged
    // (mergePeersDocuments) and `rounds` each round's own.
    nlohmann::json peers;
    // {peer: {figure: Hearsay/peer}}: the one run's medians' ratio, or with --rounds the median of
    // the rounds' ratios (peer_rounds.h); null when the peers did not run.
    nlohmann::json ratios;
    std::vector<PeerRound> rounds;  // --rounds above 1
};

// The commit and build type this binary was built from (bench_build_info.cpp).
const char* buildCommit();
const char* buildType();
BuildInfo thisBuild();  // the two above, the compiler, and whether the CUDA backend is in it

// bench_settings.cpp: the options.
Result<Settings> parseSettings(const Options& o);
std::vector<std::string> splitList(const std::string& text);
Result<int> parsePositive(const std::string& what, const std::string& text);
int fail(const std::string& message, int code = 2);  // prints "hearsay-cli bench: message", returns code
double mib(size_t bytes);
// The input window of --audio (benchWindow), or why there is none.
Result<LogMel> benchInput(const Settings& s, int nMels);

// bench_children.cpp: the engine, and the child processes (one cache-table row, one real file).
Result<BenchEngine> openEngine(const std::string& path, BackendKind kind, Precision precision, int threads,
                               bool stepGraphs, SessionOptions options);

Result<std::string> runSelf(const std::vector<std::string>& args);
Result<std::string> ensureTestModel(const Settings& s, const std::string& size, const std::string& format);
Result<std::vector<ModelReport>> benchModels(const Settings& s);
// What the report of a model says of the engine opened on it: dimensions, weight bytes and type, backend.
void describeEngine(ModelReport& m, const BenchEngine& engine);

// bench_report.cpp: tables, peaks and floors.
void printFixedWork(const ModelReport& m, const Settings& s, bool haveFloors);
void printCacheTable(const ModelReport& m);
void printDecodeProfile(const ModelReport& m);
void printEncoderProfile(const ModelReport& m);
PeakRates peakRates(const Settings& s, std::optional<GpuInfo>* gpu = nullptr);
int printFloorsOnly(const Settings& s);
// The head of a JSON report: schema, date, the command line, the machine (with its load at the end).
nlohmann::json reportHeader(const std::string& schema, const std::string& date, const std::vector<std::string>& args,
                            const MachineInfo& machine);

// bench_peers.cpp: the Python peers.
fs::path sourceTree();  // the folder holding scripts/bench; empty when not found
extern const char* const kNoScripts;  // the message when it is not found
std::string peersToRun(const Settings& s);
bool ranOnCuda(const Settings& s, const ModelReport& m);
// The interpreter for the peers' scripts: --python, else SOURCE/.venv-bench/bin/python, else python3.
std::string peersPython(const Settings& s, const fs::path& source);
// The CTranslate2 float32 conversion faster-whisper reads, made beside m.hfPath when missing; its folder.
Result<std::string> ensureCt2Conversion(const ModelReport& m);
Result<nlohmann::json> runPeers(const Settings& s, const ModelReport& m);
bool peersNeed(const Settings& s, const std::string& format);

// bench_sections.cpp: the real-file and streaming sections.
int runRealFileSection(const Settings& s, const std::vector<std::string>& args);
int runStreamingSection(const Settings& s);
// bench_encoder_pairs.cpp: the encoders of Hearsay and CTranslate2 in pairs taking turns.
int runEncoderPairsSection(const Settings& s, const std::vector<std::string>& args, std::vector<ModelReport>& models);

} // namespace hearsay::cli::bench
