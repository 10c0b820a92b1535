// hearsay-cli bench: its usage text and options, parsed into Settings.
#include "app/cli/bench/bench_cli.h"

#include "app/cli/command.h"
#include "app/cli/options.h"
#include "app/cli/shared_data.h"
#include "core/backend/backend.h"
#include "core/bench/bench_input.h"
#include "core/bench/cache_run.h"
#include "core/bench/fixed_work.h"
#include "core/bench/machine_info.h"
#include "core/bench/peak_memory.h"
#include "core/engine/transcription_request.h"
#include "core/bench/real_file_bench.h"
#include "core/bench/real_file_run.h"
#include "core/bench/roofline.h"
#include "core/bench/subprocess.h"
#include "core/engine/engine.h"
#include "core/model/whisper_model.h"
#include "core/nn/inference_session.h"
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
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hearsay::cli::bench {

void declareOptions(CLI::App& c) {
    c.footer(
        "Fixed work per model (as whisper.cpp's bench): one encoder pass over a 30 s window (with the\n"
        "cross-attention K/V projection), 256 single-token decode steps (cache 0..255), 64 steps of 5\n"
        "beams, a 256-token prompt run 16 times; medians of --repeats runs after --warmup runs. Then the\n"
        "cache table: time per token and peak memory for each decode length with caches {both, self,\n"
        "cross, none}, each row in a fresh child process. Floors from measured machine peaks.\n"
        "Real-file section (instead of the fixed work and the cache table when --real-files is given):\n"
        "each program transcribes each file in interleaved rounds, one fresh process per program and round.\n"
        "Streaming section (instead, when --streaming is given): each file played through a live session;\n"
        "reports per-step figures, latency (median, p90) from the end of a word's audio to its tentative\n"
        "and committed display, real-time factor, dropped audio, and the WER of the committed text\n"
        "against the offline transcript of the same file and model.");
    addText(c, "--sizes", "LIST", "model sizes to make with make-test-model (default tiny,base)");
    addText(c, "--model", "PATH", "benchmark this model instead (HF directory or ggml file); several via commas");
    addChoice(c, "--format", {"ggml", "hf"}, "format Hearsay loads for made models: ggml (default, as whisper.cpp) or hf");
    addChoice(c, "--dtype", {"f16", "f32", "fp16", "fp32", "q8_0", "q5_0"},
              "weights of made models: f16 (default: what whisper.cpp's bench needs; its convolutions take f16 "
              "only), f32, or the ggml blocks q8_0 or q5_0 (the ggml file Hearsay and whisper.cpp read; the "
              "Hugging Face form the other peers read stays f16, which faster-whisper-int8 quantises itself)");
    addInt(c, "--seed", 0, std::numeric_limits<int>::max(), "seed of the random weights (default 1)");
    addChoice(c, "--backend", {"cpu", "cuda", "auto"}, "cpu, cuda or auto (default cpu)");
    addChoice(c, "--precision", {"fp16", "fp32"},
              "CUDA weights and GEMMs: fp16 (default; tensor cores, fp32 accumulation) or fp32; also the floors' "
              "element bytes and the transformers peers' dtype");
    addInt(c, "--threads", 1, 4096, "CPU threads (default: all available)");
    addFlag(c, "--no-step-graphs",
            "run every decode step op by op (default: record each step shape once and replay it per token; a CUDA "
            "graph on the GPU)");
    addInt(c, "--repeats", 1, 1000000, "timed repeats (default 3)");
    addInt(c, "--warmup", 0, 1000000, "untimed runs first (default 1)");
    addText(c, "--lengths", "LIST",
            "cache-table decode lengths (default 20,128,224; longer ones such as 444 chain 30 s windows, see "
            "bench_work.h)");
    addText(c, "--modes", "LIST", "cache-table switches (default both,self,cross,none)");
    addFlag(c, "--no-cache-table", "skip the cache table");
    addFlag(c, "--no-floors", "skip the peak probe and floors");
    addFlag(c, "--op-profile",
            "after the fixed work, run its single-token decode steps once more with each op timed, and print "
            "where a step's time goes (op, calls and ms per token, share, bytes read and the rate they came at); "
            "then one more encoder run the same way (op, calls, ms, share, and the GFLOP/s of the products and "
            "attention)");
    addNumber(c, "--peak-gflops", 0.0, std::nullopt,
              "assume this peak for the floors instead of measuring it (CUDA: the probe times an fp16 cuBLAS GEMM "
              "and reports the spec sheet's figures beside it for known devices)");
    addNumber(c, "--peak-gbs", 0.0, std::nullopt,
              "assume this memory bandwidth for the floors instead of measuring it (CUDA: a 1 GiB read/copy on "
              "the GPU)");
    addFlag(c, "--floors-only", "print the floors of --sizes (any official size or DxLxH) and stop");
    addFlag(c, "--peers", "run scripts/bench/peers.py in the same run and print ratios Hearsay/peer");
    addText(c, "--peers-list", "L", "peers to run (default: all of peers.py; with --backend cuda: transformers-static)");
    addInt(c, "--rounds", 1, 1000,
           "with --peers: run Hearsay's fixed work and the peers' N times each, in turn, the order flipped every "
           "round; the ratios are the median of the rounds' (default 1)");
    addInt(c, "--encoder-pairs", 1, 1000,
           "only the encoders: Hearsay's and CTranslate2's (--peers-list faster-whisper or faster-whisper-int8; "
           "default by --dtype), each model loaded once, one run of each a pair, the peer first in every second "
           "pair; the ratio is the median of the pairs'");
    addFlag(c, "--peers-compile",
            "also time transformers' static cache under torch.compile (reduce-overhead), bounded by "
            "--peers-compile-timeout");
    addInt(c, "--peers-compile-timeout", 1, 86400, "seconds (default 300)");
    addText(c, "--python", "PATH",
            "interpreter for peers.py (default: SOURCE/.venv-bench/bin/python when it exists, else python3)");
    addText(c, "--audio", "WAV",
            "16 kHz mono 16-bit input (default: speech-30s-a.wav of the shared data, $HEARSAY_SHARED_DATA_DIR or a "
            "shared/data folder above hearsay-cli)");
    addText(c, "--work-dir", "DIR", "where made models are kept (default: /tmp/hearsay-bench)");
    addText(c, "--json", "FILE", "also write the full report as JSON");
    addInt(c, "--decode-steps", 1, 1000000, "change the fixed work: single-token decode steps (default 256)");
    addInt(c, "--batch-steps", 1, 1000000, "change the fixed work: steps of the beams (default 64)");
    addInt(c, "--batch-beams", 1, 16, "change the fixed work: beams (default 5)");
    addInt(c, "--prompt-tokens", 1, 1000000, "change the fixed work: prompt tokens (default 256)");
    addInt(c, "--prompt-runs", 1, 1000000, "change the fixed work: prompt runs (default 16)");
    addText(c, "--real-files", "LIST",
            "real-file section: WAVs (16 kHz mono 16-bit) each program transcribes; a sibling FILE.txt is the "
            "reference for the word error rates (else faster-whisper-float32's text)");
    addText(c, "--real-models", "LIST",
            "real-file section: CTranslate2 model directories (converted here to ggml f16, q8_0 and q5_0 as the "
            "programs need them: whisper.cpp, the -q8_0 and -q5_0 programs; kept in --work-dir); streaming section: model directories (or files) to stream "
            "with (CPU, --threads)");
    addText(c, "--real-beams", "LIST", "beam sizes (default 1,5; 1 is greedy; Hearsay uses CTranslate2's beam rules)");
    addInt(c, "--real-rounds", 1, 1000, "interleaved rounds, one fresh process per program and round (default 3)");
    addText(c, "--real-programs", "LIST",
            "default hearsay,hearsay-q8_0,faster-whisper-float32,faster-whisper-int8,whisper.cpp,whisper.cpp-q8_0 "
            "(also hearsay-q5_0, whisper.cpp-q5_0)");
    addText(c, "--whisper-cli", "PATH", "whisper.cpp's CLI (default: SOURCE/build-whispercpp/build/bin/whisper-cli)");
    addText(c, "--language", "CODE", "spoken language given to every program (default en)");
    addText(c, "--streaming", "LIST", "streaming section: audio files, played as a microphone at --speed");
    addNumber(c, "--speed", 0.001, 1000.0, "real-time multiple (default 1: real time)");
    addText(c, "--step", "LIST", "least new audio that starts a step, seconds (default: the session's)");
    addText(c, "--commit", "LIST",
            "agreement (LocalAgreement-2), alignatt and/or utterance (at each utterance's end only); default: the "
            "session's");
    addText(c, "--min-silence", "LIST", "silence that ends an utterance, ms (default: the session's)");
    addText(c, "--beams", "LIST", "beam sizes (default 1: greedy)");
    addText(c, "--audio-context", "LIST",
            "full (default) and/or paddings in seconds (e.g. full,0.5,2): reduced audio context, the window plus "
            "that much padding encoded");
    addText(c, "--word-timings", "LIST",
            "on (default) and/or off: word alignment each step (latencies from each word's own end) or times shared "
            "out over the characters");
}

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

int fail(const std::string& message, int code) {
    std::fprintf(stderr, "hearsay-cli bench: %s\n", message.c_str());
    return code;
}

Result<LogMel> benchInput(const Settings& s, int nMels) {
    if (s.audio.empty()) return makeError(s.audioMissing);
    return benchWindow(s.audio, nMels);
}

double mib(size_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

Result<Settings> parseSettings(const Options& o) {
    Settings s;
    s.sizes = splitList(o.value("sizes", "tiny,base"));
    s.models = splitList(o.value("model", ""));
    s.format = o.value("format", s.format);
    if (s.format != "ggml" && s.format != "hf") return makeError("--format must be ggml or hf, got '" + s.format + "'");
    s.dtype = o.value("dtype", s.dtype);
    if (s.dtype == "fp32") s.dtype = "f32";
    if (s.dtype == "fp16") s.dtype = "f16";
    if (s.dtype != "f32" && s.dtype != "f16" && s.dtype != "q8_0" && s.dtype != "q5_0") {
        return makeError("--dtype must be f32, f16, q8_0 or q5_0, got '" + s.dtype + "'");
    }
    if (s.format == "hf" && (s.dtype == "q8_0" || s.dtype == "q5_0")) {
        return makeError("--dtype " + s.dtype + " needs --format ggml (a Hugging Face checkpoint holds no ggml blocks)");
    }
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
    s.opProfile = o.has("op-profile");
    s.floors = !o.has("no-floors");
    s.floorsOnly = o.has("floors-only");
    for (auto [name, out] : {std::pair{"peak-gflops", &s.peakGflops}, std::pair{"peak-gbs", &s.peakGbs}}) {
        auto v = o.doubleValue(name, 0.0);
        if (!v || v.value() < 0) return makeError(std::string("--") + name + " expects a positive number");
        *out = v.value();
    }
    s.peers = o.has("peers");
    s.peersList = o.value("peers-list", "");
    if (auto v = o.value("rounds")) {
        auto n = parsePositive("--rounds", *v);
        if (!n) return n.error();
        s.rounds = n.value();
        if (s.rounds > 1 && !s.peers) {
            return makeError("--rounds takes turns between Hearsay's runs and the peers': give --peers as well");
        }
    }
    if (auto v = o.value("encoder-pairs")) {
        auto n = parsePositive("--encoder-pairs", *v);
        if (!n) return n.error();
        s.encoderPairs = n.value();
        // The peers that can run one encoder at a time: CTranslate2's, in the weights' kind.
        if (s.peersList.empty()) s.peersList = s.dtype == "f16" || s.dtype == "f32" ? "faster-whisper" : "faster-whisper-int8";
        for (const std::string& peer : splitList(s.peersList)) {
            if (peer != "faster-whisper" && peer != "faster-whisper-int8") {
                return makeError("--encoder-pairs runs faster-whisper or faster-whisper-int8, not '" + peer + "'");
            }
        }
        if (s.backend != BackendKind::Cpu) return makeError("--encoder-pairs compares CPU encoders: use --backend cpu");
        s.peers = true;  // the models are made in the peer's format as well
    }
    s.peersCompile = o.has("peers-compile");
    if (auto v = o.value("peers-compile-timeout")) {
        auto n = parsePositive("--peers-compile-timeout", *v);
        if (!n) return n.error();
        s.peersCompileTimeout = n.value();
    }
    s.python = o.value("python", "");
    s.audio = o.value("audio", "");
    if (s.audio.empty()) {  // read only by the model sections: a missing file is theirs to report
        auto found = sharedDataFile("speech-30s-a.wav", "--audio");
        s.audio = found ? found->string() : std::string();
        s.audioMissing = found ? std::string() : found.message();
    }
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
    if (auto v = o.value("word-timings")) {
        s.wordTimings.clear();
        for (const std::string& item : splitList(*v)) {
            if (item != "on" && item != "off") return makeError("--word-timings takes on and/or off, got '" + item + "'");
            s.wordTimings.push_back(item == "on");
        }
    }
    auto speed = o.doubleValue("speed", s.speed);
    if (!speed) return speed.error();
    if (!(speed.value() > 0.0)) return makeError("--speed must be positive");
    s.speed = speed.value();
    for (const std::string& item : splitList(o.value("step", ""))) {
        char* end = nullptr;
        const double step = std::strtod(item.c_str(), &end);
        if (end == item.c_str() || *end != '\0' || !(step >= TranscriptionRequest::kMinStepSeconds && step <= TranscriptionRequest::kMaxStepSeconds)) {
            return makeError("--step takes seconds between 0.05 and 10, got '" + item + "'");
        }
        s.steps.push_back(step);
    }
    if (auto v = o.value("beams")) {
        s.streamingBeams.clear();
        for (const auto& item : splitList(*v)) {
            auto n = parsePositive("--beams", item);
            if (!n) return n.error();
            s.streamingBeams.push_back(n.value());
        }
    }
    for (const std::string& item : splitList(o.value("commit", ""))) {
        if (item != "agreement" && item != "alignatt" && item != "utterance") {
            return makeError("--commit takes agreement, alignatt and/or utterance, got '" + item + "'");
        }
        s.commits.push_back(item);
    }
    for (const std::string& item : splitList(o.value("min-silence", ""))) {
        char* end = nullptr;
        const long ms = std::strtol(item.c_str(), &end, 10);
        if (end == item.c_str() || *end != '\0' || ms < 0 || ms > 10000) {
            return makeError("--min-silence takes milliseconds between 0 and 10000, got '" + item + "'");
        }
        s.minSilencesMs.push_back(int(ms));
    }
    return s;
}

} // namespace hearsay::cli::bench
