// hearsay-cli bench: the benchmark instrument. Fixed work comparable with whisper.cpp's bench,
// the with/without-cache table (each row in a fresh child process, for honest peak memory),
// physical floors, and the peers (transformers, faster-whisper, whisper.cpp) in the same run.
// The sections live in app/cli/bench/; this file runs the fixed work and the cache table.
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
#include "core/engine/cuda_module.h"
#include "kernels/peak_rates.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;

namespace hearsay::cli {
namespace {

using namespace hearsay::cli::bench;

int runBench(const Options& options) {
    const std::vector<std::string>& args = options.words();
    auto parsed = parseSettings(options);
    if (!parsed) return fail(parsed.message());
    const Settings& s = parsed.value();
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
    build.buildType = buildType();
    build.compiler = compilerDescription();
    build.commit = buildCommit();
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
        if (auto info = cuda_module::describeGpu(0)) gpu = info.value();
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

    // On the CPU the SGEMM probe is read again beside each model's encoder runs and its peers'
    // (unless the peak was given): the ratios of the encoders compare runs minutes apart.
    const bool probeCompute = haveFloors && s.backend == BackendKind::Cpu && s.peakGflops <= 0;
    for (ModelReport& m : models) {
        if (probeCompute) m.sgemmProbeFlopsPerSecond.values.push_back(measureSgemmRate(s.threads));
        std::fprintf(stderr, "bench: %s: fixed work\n", m.name.c_str());
        {  // the engine lives only for the fixed work: the children then start from a quiet machine
            SessionOptions sessionOptions;
            sessionOptions.maxBeams = s.work.batchBeams;
            auto engine = openEngine(m.path, s.backend, s.precision, s.threads, s.stepGraphs, sessionOptions);
            if (!engine) return fail(m.path + ": " + engine.message(), 1);
            m.config = engine->engine.model().config();
            m.weightBytes = engine->engine.model().weightBytes();
            m.weightDtype = std::string(dtypeName(engine->engine.model().weights().tokenEmbedding.dtype));
            m.backendName = engine->engine.backend().name();
            auto mel = benchInput(s, m.config.nMels);
            if (!mel) return fail(mel.message(), 1);
            // On the CPU the bandwidth is read again beside each timed decode run, unless given:
            // a shared machine's bandwidth drifts, and a floor is only as good as its probe.
            std::unique_ptr<ReadProbe> probe;
            if (haveFloors && s.backend == BackendKind::Cpu && s.peakGbs <= 0) probe = std::make_unique<ReadProbe>(s.threads);
            std::function<double()> besideDecode;
            if (probe) besideDecode = [&probe] { return probe->measure(1); };
            auto fixed = runFixedWork(*engine->session, mel.value(), s.work, besideDecode);
            if (!fixed) return fail(m.name + ": " + fixed.message(), 1);
            m.fixed = fixed.value();
            probe.reset();
            if (s.opProfile) {
                auto profile = profileDecodeSteps(*engine->session, engine->engine.backend(), s.work);
                if (!profile) return fail(m.name + ": " + profile.message(), 1);
                m.decodeProfile = profile.value();
                auto encoder = profileEncoder(*engine->session, engine->engine.backend(), mel.value());
                if (!encoder) return fail(m.name + ": " + encoder.message(), 1);
                m.encoderProfile = encoder.value();
            }
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
            // Element bytes as the backend that ran holds weights and caches (Auto resolved by its name),
            // for the matrices as the model's file holds them (a --model file in any dtype, the made
            // models in --dtype's).
            const BackendKind ran = ranOnCuda(s, m) ? BackendKind::Cuda : BackendKind::Cpu;
            m.elementBytes = floorElementBytes(ran, m.weightDtype, s.precision);
            m.floorPeaks = peak;
            if (const Samples& read = m.fixed.probeBytesPerSecond; !read.values.empty()) {
                m.floorPeaks.bytesPerSecond = read.median();
                m.floorPeaks.bytesSource = "measured beside the timed decode runs: the median of " +
                                           std::to_string(read.values.size()) + " reads of the probe, each the best of 1 plain and 1 prefetched";
            }
            m.floors = computeFloors(m.config, s.work, m.floorPeaks, m.elementBytes);
        }

        if (s.cacheTable) {
            for (int length : s.lengths) {
                for (CacheMode mode : s.modes) {
                    std::fprintf(stderr, "bench: %s: cache table, length %d, caches %s\n", m.name.c_str(), length,
                                 std::string(cacheModeName(mode)).c_str());
                    std::vector<std::string> child = {"bench-cache-row", "--model", m.path, "--length",
                                                      std::to_string(length), "--mode", std::string(cacheModeName(mode)),
                                                      "--backend", std::string(backendKindName(s.backend)), "--precision",
                                                      std::string(precisionName(s.precision)), "--threads",
                                                      std::to_string(s.threads), "--audio", s.audio};
                    if (!s.stepGraphs) child.push_back("--no-step-graphs");
                    auto out = runSelf(child);
                    if (!out) return fail(out.message(), 1);
                    const std::string text = out.value();
                    const size_t lineStart = text.find_last_of('\n', text.size() > 1 ? text.size() - 2 : 0);
                    auto document = parseJson(lineStart == std::string::npos ? text : text.substr(lineStart + 1));
                    if (!document) return fail("child output is not JSON: " + document.message(), 1);
                    auto row = cacheRunFromJson(document.value());
                    if (!row) return fail(row.message(), 1);
                    m.rows.push_back(row.value());
                }
            }
        }
        if (s.peers) {
            // Each peer reads the model in its own format: whisper.cpp a ggml file, the others a
            // Hugging Face checkpoint (peers.py reports a peer whose file is missing).
            const bool someCanRun = !m.hfPath.empty() || (!m.ggmlPath.empty() && peersNeed(s, "ggml"));
            // The bandwidth and the SGEMM rate just before and after the peers (each where it is
            // probed): they run minutes after Hearsay's runs, and on a shared machine the memory
            // and the cores may have changed speed meanwhile. The probe's buffer is not held while
            // they run.
            const bool probed = !m.fixed.probeBytesPerSecond.values.empty();
            auto readOnce = [&] {
                if (probed) m.peersProbeBytesPerSecond.values.push_back(ReadProbe(s.threads).measure(1));
                if (probeCompute) m.sgemmProbeFlopsPerSecond.values.push_back(measureSgemmRate(s.threads));
            };
            readOnce();
            auto peers = someCanRun ? runPeers(s, m)
                                    : Result<json>(makeError("the peers need a Hugging Face checkpoint (use --sizes)"));
            readOnce();
            if (peers) {
                m.peers = peers.value();
            } else {
                json doc;
                doc["peers"] = json::object();
                doc["errors"]["all"] = peers.message();
                m.peers = doc;
            }
        }
        printFixedWork(m, s, haveFloors);
        if (s.cacheTable) printCacheTable(m);
        if (m.decodeProfile) printDecodeProfile(m);
        if (m.encoderProfile) printEncoderProfile(m);
        std::fflush(stdout);
    }

    if (!s.json.empty()) {
        json doc = reportHeader("hearsay-bench/1", date, args, machine);
        doc["build"] = toJson(build);
        json settings;
        settings["backend"] = std::string(backendKindName(s.backend));
        settings["precision"] = std::string(precisionName(s.precision));
        settings["threads"] = s.threads;
        settings["dtype"] = s.dtype;
        settings["format"] = s.format;
        settings["seed"] = s.seed;
        settings["audio"] = s.audio;
        doc["settings"] = settings;
        doc["work"] = toJson(s.work);
        doc["peaks"] = haveFloors ? toJson(peak) : json();
        json list = json::array();
        for (const ModelReport& m : models) {
            json j;
            j["name"] = m.name;
            j["path"] = m.path;
            j["backend"] = m.backendName;
            if (m.stepOperations > 0) j["stepOperations"] = m.stepOperations;
            j["weightBytes"] = m.weightBytes;
            json dims;
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
            j["weightDtype"] = m.weightDtype;
            j["fixedWork"] = toJson(m.fixed);
            if (m.decodeProfile) j["decodeProfile"] = toJson(*m.decodeProfile);
            if (m.encoderProfile) j["encoderProfile"] = toJson(*m.encoderProfile);
            j["floors"] = haveFloors ? toJson(m.floors) : json();
            if (haveFloors) j["floorPeaks"] = toJson(m.floorPeaks);
            if (!m.peersProbeBytesPerSecond.values.empty()) j["peersProbeBytesPerSecond"] = m.peersProbeBytesPerSecond.values;
            if (!m.sgemmProbeFlopsPerSecond.values.empty()) j["sgemmProbeFlopsPerSecond"] = m.sgemmProbeFlopsPerSecond.values;
            if (haveFloors) j["elementBytes"] = toJson(m.elementBytes);
            json rows = json::array();
            for (const auto& r : m.rows) {
                json row = toJson(r);
                json windows = json::array();
                for (const WindowPlan& w : planDecodeLength(m.config, r.length)) {
                    json wj;
                    wj["promptTokens"] = w.promptTokens;
                    wj["sotTokens"] = w.sotTokens;
                    wj["sampledTokens"] = w.sampledTokens;
                    windows.push_back(wj);
                }
                row["windowPlan"] = std::move(windows);
                rows.push_back(row);
            }
            j["cacheTable"] = std::move(rows);
            j["peers"] = m.peers;
            if (!m.peers.is_null()) {
                json ratios;
                static const char* figures[4] = {"encoderMs", "decodeMsPerToken", "batchMsPerToken", "promptMsPerToken"};
                const double hearsay[4] = {m.fixed.encoderMs.median(), m.fixed.decodeMsPerToken.median(),
                                           m.fixed.batchMsPerToken.median(), m.fixed.promptMsPerToken.median()};
                const json peers = m.peers.value("peers", json::object());
                for (const auto& [peer, data] : peers.items()) {
                    for (int i = 0; i < 4; ++i) {
                        const double v = peerMedian(data, figures[i]);
                        ratios[peer][figures[i]] = v > 0 ? json(hearsay[i] / v) : json();
                    }
                }
                j["ratios"] = ratios;
            }
            list.push_back(j);
        }
        doc["models"] = std::move(list);
        std::ofstream out(s.json);
        out << dumpJson(doc, 1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(bench, "bench", "benchmark: fixed work, cache table, floors, peers", declareOptions, runBench);

} // namespace hearsay::cli
