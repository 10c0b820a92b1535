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
#include "core/bench/peer_rounds.h"
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

// Hearsay's fixed work on one model, the engine opened for it alone (so that what runs next, a
// child or a peer, starts from a quiet machine), with --op-profile's tables when `profile`.
// Fills in what the model's report says of the engine.
Result<FixedWorkResult> runHearsay(const Settings& s, ModelReport& m, bool probeBandwidth, bool profile) {
    std::fprintf(stderr, "bench: %s: fixed work\n", m.name.c_str());
    SessionOptions sessionOptions;
    sessionOptions.maxBeams = s.work.batchBeams;
    auto engine = openEngine(m.path, s.backend, s.precision, s.threads, s.stepGraphs, sessionOptions);
    if (!engine) return makeError(m.path + ": " + engine.message());
    describeEngine(m, engine.value());
    auto mel = benchInput(s, m.config.nMels);
    if (!mel) return mel.error();
    // The bandwidth is read again beside each timed decode run: a shared machine's bandwidth
    // drifts, and a floor is only as good as its probe.
    std::unique_ptr<ReadProbe> probe;
    if (probeBandwidth) probe = std::make_unique<ReadProbe>(s.threads);
    std::function<double()> besideDecode;
    if (probe) besideDecode = [&probe] { return probe->measure(1); };
    auto fixed = runFixedWork(*engine->session, mel.value(), s.work, besideDecode);
    if (!fixed) return makeError(m.name + ": " + fixed.message());
    probe.reset();
    if (profile && s.opProfile) {
        auto decode = profileDecodeSteps(*engine->session, engine->engine.backend(), s.work);
        if (!decode) return makeError(m.name + ": " + decode.message());
        m.decodeProfile = decode.value();
        auto encoder = profileEncoder(*engine->session, engine->engine.backend(), mel.value());
        if (!encoder) return makeError(m.name + ": " + encoder.message());
        m.encoderProfile = encoder.value();
    }
    // Proof of the path the decode steps took (counts of the last run's window).
    const SessionTimings t = engine->session->timings();
    m.stepOperations = t.stepOperations;
    std::fprintf(stderr,
                 "bench: %s: step graphs %s: %d recordings (the latest of %zu operations), %d replays of %d decode calls "
                 "(last run)\n",
                 m.name.c_str(), s.stepGraphs ? "on" : "off", t.stepRecordings, t.stepOperations, t.stepReplays, t.decodeCalls);
    return fixed.value();
}

// The peers' document for one model, and the probes read just before and just after them (each
// where it is probed): on a shared machine the memory and the cores may change speed between
// Hearsay's runs and the peers'. No probe buffer is held while they run. A peers.py that cannot
// run gives a document holding only its error.
struct PeersRun {
    json document;
    std::vector<double> sgemm;  // FLOP/s before, after
    std::vector<double> bytes;  // bytes per second before, after
};

PeersRun runPeersBetweenProbes(const Settings& s, const ModelReport& m, bool probeBandwidth, bool probeCompute) {
    PeersRun run;
    auto readOnce = [&] {
        if (probeBandwidth) run.bytes.push_back(ReadProbe(s.threads).measure(1));
        if (probeCompute) run.sgemm.push_back(measureSgemmRate(s.threads));
    };
    // Each peer reads the model in its own format: whisper.cpp a ggml file, the others a Hugging
    // Face checkpoint (peers.py reports a peer whose file is missing).
    const bool someCanRun = !m.hfPath.empty() || (!m.ggmlPath.empty() && peersNeed(s, "ggml"));
    readOnce();
    auto peers = someCanRun ? runPeers(s, m) : Result<json>(makeError("the peers need a Hugging Face checkpoint (use --sizes)"));
    readOnce();
    if (peers) {
        run.document = peers.value();
    } else {
        run.document["peers"] = json::object();
        run.document["errors"]["all"] = peers.message();
    }
    return run;
}

int runBench(const Options& options) {
    const std::vector<std::string>& args = options.words();
    auto parsed = parseSettings(options);
    if (!parsed) return fail(parsed.message());
    const Settings& s = parsed.value();
    if (!s.realFiles.empty()) return runRealFileSection(s, args);
    if (!s.streamingFiles.empty()) return runStreamingSection(s);

    if (s.floorsOnly) return printFloorsOnly(s);

    auto listed = benchModels(s);
    if (!listed) return fail(listed.message(), 1);
    std::vector<ModelReport> models = std::move(listed.value());
    if (s.encoderPairs > 0) return runEncoderPairsSection(s, args, models);

    MachineInfo machine = collectMachineInfo();
    const BuildInfo build = thisBuild();
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
    // (unless the peak was given): the ratios of the encoders compare runs minutes apart. The
    // bandwidth is read beside the decode runs and the peers unless given.
    const bool probeCompute = haveFloors && s.backend == BackendKind::Cpu && s.peakGflops <= 0;
    const bool probeBandwidth = haveFloors && s.backend == BackendKind::Cpu && s.peakGbs <= 0;
    for (ModelReport& m : models) {
        // With --rounds, Hearsay's runs and the peers' take turns, the peers first in every second
        // round, so that neither program keeps the better minutes of a drifting machine.
        const int rounds = s.peers ? s.rounds : 1;
        std::vector<PeerRound> done;
        for (int r = 0; r < rounds; ++r) {
            PeerRound round;
            round.peersFirst = r % 2 == 1;
            if (rounds > 1) std::fprintf(stderr, "bench: %s: round %d of %d\n", m.name.c_str(), r + 1, rounds);
            PeersRun peers;
            if (round.peersFirst) peers = runPeersBetweenProbes(s, m, probeBandwidth, probeCompute);
            if (probeCompute) round.sgemmProbeFlopsPerSecond.values.push_back(measureSgemmRate(s.threads));
            auto fixed = runHearsay(s, m, probeBandwidth, /*profile=*/r == 0);
            if (!fixed) return fail(fixed.message(), 1);
            round.fixed = fixed.value();
            if (s.peers && !round.peersFirst) peers = runPeersBetweenProbes(s, m, probeBandwidth, probeCompute);
            // The readings in one order whichever ran first: before Hearsay, before the peers, after them.
            for (double v : peers.sgemm) round.sgemmProbeFlopsPerSecond.values.push_back(v);
            round.peersProbeBytesPerSecond.values = peers.bytes;
            round.peers = std::move(peers.document);
            if (s.peers) round.ratios = ratiosAgainstPeers(round.fixed, round.peers);
            done.push_back(std::move(round));
        }
        std::vector<FixedWorkResult> ours;
        std::vector<json> roundRatios, roundPeers;
        for (const PeerRound& round : done) {
            ours.push_back(round.fixed);
            roundRatios.push_back(round.ratios);
            roundPeers.push_back(round.peers);
            for (double v : round.sgemmProbeFlopsPerSecond.values) m.sgemmProbeFlopsPerSecond.values.push_back(v);
            for (double v : round.peersProbeBytesPerSecond.values) m.peersProbeBytesPerSecond.values.push_back(v);
        }
        m.fixed = poolRounds(ours);
        if (s.peers) {
            m.peers = rounds > 1 ? mergePeersDocuments(roundPeers) : roundPeers.front();
            m.ratios = rounds > 1 ? medianOfRatios(roundRatios) : roundRatios.front();
        }
        if (rounds > 1) m.rounds = std::move(done);
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
            m.decodeAgainstFloorByRun = decodeAgainstFloorByRun(m.config, s.work, m.floorPeaks, m.elementBytes, m.fixed);
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
            if (!m.decodeAgainstFloorByRun.values.empty()) j["decodeAgainstFloorByRun"] = toJson(m.decodeAgainstFloorByRun);
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
            if (!m.peers.is_null()) j["ratios"] = m.ratios;
            if (!m.rounds.empty()) {
                json rounds = json::array();
                for (const PeerRound& round : m.rounds) {
                    json jr;
                    jr["first"] = round.peersFirst ? "peers" : "hearsay";
                    jr["fixedWork"] = toJson(round.fixed);
                    jr["peers"] = round.peers;
                    jr["ratios"] = round.ratios;
                    if (!round.sgemmProbeFlopsPerSecond.values.empty()) jr["sgemmProbeFlopsPerSecond"] = round.sgemmProbeFlopsPerSecond.values;
                    if (!round.peersProbeBytesPerSecond.values.empty()) jr["peersProbeBytesPerSecond"] = round.peersProbeBytesPerSecond.values;
                    rounds.push_back(std::move(jr));
                }
                j["rounds"] = std::move(rounds);
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
