// hearsay-cli bench --encoder-pairs N: the encoders of Hearsay and of CTranslate2 (faster-whisper,
// float32 or int8) on the same weights, in pairs that take turns (core/bench/encoder_pairs.h).
// Hearsay's model is loaded in this process and the peer's in scripts/bench/peers.py
// --serve-encoder, kept running and asked for one encoder run at a time, so that the two runs of a
// pair are seconds apart rather than minutes.
#include "app/cli/bench/bench_cli.h"

#include "core/bench/encoder_pairs.h"
#include "core/bench/machine_info.h"
#include "core/bench/roofline.h"
#include "core/bench/subprocess.h"
#include "core/util/json_text.h"
#include "core/util/stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

using nlohmann::json;

namespace hearsay::cli::bench {
namespace {

// How long the peer may take to load (and convert) a model, and then one encoder run.
constexpr int kReadyTimeoutMs = 30 * 60 * 1000;
constexpr int kRunTimeoutMs = 20 * 60 * 1000;

// One line of the peer's JSON, or its error.
Result<json> peerAnswer(Result<std::string> line) {
    if (!line) return makeError("the peer (peers.py --serve-encoder): " + line.message());
    auto document = parseJson(line.value());
    if (!document || !document->is_object()) return makeError("peers.py answered something that is not a JSON object: " + line.value());
    const json& j = document.value();
    if (j.contains("error")) return makeError("peers.py: " + j.value("error", std::string("(no message)")));
    return j;
}

struct Comparison {
    std::string peer;
    std::string version;
    std::string notes;
    EncoderPairs pairs;
    std::vector<double> sgemm;  // the SGEMM probe just before the pairs and just after, FLOP/s
};

// The pairs of one model against one peer.
Result<Comparison> comparePair(const Settings& s, const ModelReport& m, BenchEngine& engine, const LogMel& mel,
                               const std::string& peer) {
    const fs::path source = sourceTree();
    auto ct2 = ensureCt2Conversion(m);
    if (!ct2) return ct2.error();
    std::vector<std::string> argv = {peersPython(s, source), (source / "scripts/bench/peers.py").string(), "--serve-encoder",
                                     "--peers", peer, "--hf", m.hfPath, "--ct2", ct2.value(), "--threads",
                                     std::to_string(s.threads), "--audio", s.audio, "--decode-steps",
                                     std::to_string(s.work.decodeSteps), "--batch-steps", std::to_string(s.work.batchSteps),
                                     "--batch-beams", std::to_string(s.work.batchBeams), "--prompt-tokens",
                                     std::to_string(s.work.promptTokens), "--prompt-runs", std::to_string(s.work.promptRuns)};
    std::fprintf(stderr, "bench: %s: loading %s\n", m.name.c_str(), peer.c_str());
    auto child = LineChild::start(argv);
    if (!child) return child.error();
    LineChild& server = *child.value();
    auto ready = peerAnswer(server.readLine(kReadyTimeoutMs));
    if (!ready) return ready.error();
    Comparison c;
    c.peer = peer;
    c.version = ready->value("version", "");
    c.notes = ready->value("notes", "");

    EncoderRun hearsay = [&]() -> Result<double> {
        const auto start = std::chrono::steady_clock::now();
        if (auto ok = engine.session->encode(mel); !ok) return ok.error();
        return msSince(start);
    };
    EncoderRun other = [&]() -> Result<double> {
        auto answer = peerAnswer(server.ask("encoder", kRunTimeoutMs));
        if (!answer) return answer.error();
        const json& j = answer.value();
        if (!j.contains("encoderMs") || !j["encoderMs"].is_number()) {
            return makeError("peers.py answered without encoderMs: " + j.dump());
        }
        return j["encoderMs"].get<double>();
    };
    std::fprintf(stderr, "bench: %s: %d encoder pairs against %s\n", m.name.c_str(), s.encoderPairs, peer.c_str());
    // How fast the cores were, for the record: the pairs' ratios do not divide by it.
    c.sgemm.push_back(measureSgemmRate(s.threads));
    auto pairs = runEncoderPairs(s.encoderPairs, s.work.warmup, hearsay, other);
    if (!pairs) return makeError(m.name + " against " + peer + ": " + pairs.message());
    c.sgemm.push_back(measureSgemmRate(s.threads));
    c.pairs = pairs.value();
    return c;
}

void printComparison(const ModelReport& m, const Comparison& c) {
    std::printf("\n%s (%s weights, %s) against %s (%s), %zu encoder runs each in pairs taking turns:\n", m.name.c_str(),
                m.weightDtype.c_str(), m.backendName.c_str(), c.peer.c_str(), c.version.c_str(), c.pairs.pairs.size());
    std::printf("  %4s  %-7s  %12s  %12s  %7s\n", "pair", "first", "Hearsay ms", "peer ms", "ratio");
    double lo = 0, hi = 0;
    for (size_t i = 0; i < c.pairs.pairs.size(); ++i) {
        const EncoderPair& p = c.pairs.pairs[i];
        std::printf("  %4zu  %-7s  %12.1f  %12.1f  %6.3f\n", i + 1, p.peerFirst ? "peer" : "Hearsay", p.hearsayMs, p.peerMs,
                    p.ratio());
        lo = i == 0 ? p.ratio() : std::min(lo, p.ratio());
        hi = i == 0 ? p.ratio() : std::max(hi, p.ratio());
    }
    std::printf("  median of the pairs' ratios: %.3fx (%.3f to %.3f); medians Hearsay %.1f ms, peer %.1f ms\n",
                c.pairs.medianRatio(), lo, hi, c.pairs.hearsayMs().median(), c.pairs.peerMs().median());
    if (c.sgemm.size() == 2) {
        std::printf("  (the SGEMM probe read %.1f GFLOP/s just before the pairs and %.1f just after)\n", c.sgemm[0] / 1e9,
                    c.sgemm[1] / 1e9);
    }
}

} // namespace

int runEncoderPairsSection(const Settings& s, const std::vector<std::string>& args, std::vector<ModelReport>& models) {
    if (!s.audioMissing.empty()) return fail(s.audioMissing, 1);
    const MachineInfo machine = collectMachineInfo();
    const std::string date = utcTimestamp();
    std::printf("hearsay bench, encoders in pairs, %s\n  machine: %s, %d CPUs (%s), %.1f GiB, load average %.2f\n"
                "  build: %s, %s, commit %s\n",
                date.c_str(), machine.cpuModel.c_str(), machine.logicalCpus, machine.cpuFlags.c_str(),
                double(machine.memoryBytes) / (1024.0 * 1024.0 * 1024.0), machine.loadAverage, buildType(),
                compilerDescription().c_str(), buildCommit());
    std::fflush(stdout);

    // What every pair needs, checked before any model is loaded.
    if (sourceTree().empty()) return fail(kNoScripts, 1);
    for (const ModelReport& m : models) {
        if (m.hfPath.empty()) {
            return fail(m.name + ": the peer needs the Hugging Face checkpoint (use --sizes, or --model on one)", 1);
        }
    }

    json list = json::array();
    for (ModelReport& m : models) {
        auto engine = openEngine(m.path, s.backend, s.precision, s.threads, s.stepGraphs, SessionOptions{});
        if (!engine) return fail(m.path + ": " + engine.message(), 1);
        describeEngine(m, engine.value());
        auto mel = benchInput(s, m.config.nMels);
        if (!mel) return fail(mel.message(), 1);
        json comparisons = json::array();
        for (const std::string& peer : splitList(s.peersList)) {
            auto c = comparePair(s, m, engine.value(), mel.value(), peer);
            if (!c) return fail(c.message(), 1);
            printComparison(m, c.value());
            std::fflush(stdout);
            json j = toJson(c->pairs);
            j["peer"] = c->peer;
            j["version"] = c->version;
            j["notes"] = c->notes;
            j["sgemmProbeFlopsPerSecond"] = c->sgemm;
            comparisons.push_back(std::move(j));
        }
        json j;
        j["name"] = m.name;
        j["path"] = m.path;
        j["backend"] = m.backendName;
        j["weightDtype"] = m.weightDtype;
        j["weightBytes"] = m.weightBytes;
        j["dims"] = {{"nAudioState", m.config.nAudioState}, {"nAudioLayer", m.config.nAudioLayer},
                     {"nAudioHead", m.config.nAudioHead}, {"nTextLayer", m.config.nTextLayer}};
        j["encoderPairs"] = std::move(comparisons);
        list.push_back(std::move(j));
    }

    if (!s.json.empty()) {
        json doc = reportHeader("hearsay-bench-encoder-pairs/1", date, args, machine);
        doc["build"] = toJson(thisBuild());
        doc["settings"] = {{"threads", s.threads},  {"dtype", s.dtype},    {"seed", s.seed},
                           {"audio", s.audio},      {"warmup", s.work.warmup}, {"pairs", s.encoderPairs}};
        doc["models"] = std::move(list);
        std::ofstream out(s.json);
        out << dumpJson(doc, 1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

} // namespace hearsay::cli::bench
