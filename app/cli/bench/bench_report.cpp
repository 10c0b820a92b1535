// hearsay-cli bench: the fixed-work and cache tables, the peaks the floors divide by, --floors-only.
#include "app/cli/bench/bench_cli.h"

#include "app/cli/command.h"
#include "app/cli/options.h"
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

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;

namespace hearsay::cli::bench {

namespace {

// One line of ratios Hearsay/peer ("-" where one side has no figure), after a label.
void printRatios(const char* label, const json& ratios) {
    std::printf("  %-30s", label);
    for (size_t i = 0; i < kFixedWorkFigures.size(); ++i) {
        const json r = ratios.is_object() ? ratios.value(kFixedWorkFigures[i], json()) : json();
        if (r.is_number()) std::printf(" %*.2fx", i == 0 ? 11 : 13, r.get<double>());
        else std::printf(" %*s", i == 0 ? 12 : 14, "-");
    }
    std::printf("\n");
}

// --rounds: each round's ratios (from its own two programs' runs) and the probes read beside them.
void printRounds(const ModelReport& m) {
    std::printf("  rounds (each ratio from one round's runs; the ratios above are their medians):\n");
    std::printf("    %5s %-8s %-24s %10s %10s %8s %8s %8s %8s   %s\n", "round", "first", "peer", "enc ms", "peer ms",
                "encoder", "decode", "batch", "prompt", "probes: SGEMM GFLOP/s before Hearsay, peers before/after");
    for (size_t r = 0; r < m.rounds.size(); ++r) {
        const PeerRound& round = m.rounds[r];
        const json& ratios = round.ratios;
        std::string probes;
        char text[160];
        if (const auto& g = round.sgemmProbeFlopsPerSecond.values; g.size() == 3) {
            std::snprintf(text, sizeof text, "%.1f, %.1f/%.1f", g[0] / 1e9, g[1] / 1e9, g[2] / 1e9);
            probes += text;
        }
        if (const auto& b = round.peersProbeBytesPerSecond.values; b.size() == 2) {
            std::snprintf(text, sizeof text, "%sGB/s peers before/after %.1f/%.1f", probes.empty() ? "" : "; ", b[0] / 1e9,
                          b[1] / 1e9);
            probes += text;
        }
        const json peers = round.peers.is_object() ? round.peers.value("peers", json::object()) : json::object();
        if (peers.empty()) std::printf("    %5zu %-8s %-24s (no peer measured)\n", r + 1, round.peersFirst ? "peers" : "hearsay", "");
        for (const auto& [peer, data] : peers.items()) {
            std::printf("    %5zu %-8s %-24s %10.1f %10.1f", r + 1, round.peersFirst ? "peers" : "hearsay", peer.c_str(),
                        round.fixed.encoderMs.median(), peerFigureMedian(data, "encoderMs"));
            for (const char* figure : kFixedWorkFigures) {
                const json v = ratios.contains(peer) ? ratios[peer].value(figure, json()) : json();
                if (v.is_number()) std::printf(" %7.2fx", v.get<double>());
                else std::printf(" %8s", "-");
            }
            std::printf("   %s\n", probes.c_str());
        }
    }
}

} // namespace

void printFixedWork(const ModelReport& m, const Settings& s, bool haveFloors) {
    if (m.rounds.empty()) {
        std::printf("\n%s (%dx%dx%d, %s): fixed work, median of %d after %d warm-up\n", m.name.c_str(), m.config.nAudioState,
                    m.config.nAudioLayer, m.config.nAudioHead, m.backendName.c_str(), s.work.repeats, s.work.warmup);
    } else {
        std::printf("\n%s (%dx%dx%d, %s): fixed work, median of %zu (%zu rounds of %d after %d warm-up, in turn with the "
                    "peers)\n",
                    m.name.c_str(), m.config.nAudioState, m.config.nAudioLayer, m.config.nAudioHead, m.backendName.c_str(),
                    m.rounds.size() * size_t(s.work.repeats), m.rounds.size(), s.work.repeats, s.work.warmup);
    }
    std::printf("  %-30s %12s %14s %14s %14s\n", "", "encoder ms", "decode ms/tok", "batch ms/tok", "prompt ms/tok");
    const std::array<double, 4> hearsay = figureMedians(m.fixed);
    std::printf("  %-30s %12.2f %14.3f %14.3f %14.4f\n", "hearsay", hearsay[0], hearsay[1], hearsay[2], hearsay[3]);
    if (haveFloors) {
        const Samples& read = m.fixed.probeBytesPerSecond;
        std::printf("  %-30s %12.2f %14.3f %14.3f %14.4f\n", read.values.empty() ? "floor (peaks above)" : "floor (bandwidth below)",
                    m.floors.encoderMs, m.floors.decodeMsPerToken, m.floors.batchMsPerToken, m.floors.promptMsPerToken);
        if (!read.values.empty()) {
            const double highest = *std::max_element(read.values.begin(), read.values.end());
            std::printf("    (the decode's floors at %.1f GB/s: the probe read beside the %zu timed decode runs, %.1f to %.1f)\n",
                        read.median() / 1e9, read.values.size(), read.minimum() / 1e9, highest / 1e9);
        }
        if (const Samples& byRun = m.decodeAgainstFloorByRun; !byRun.values.empty()) {
            const double highest = *std::max_element(byRun.values.begin(), byRun.values.end());
            std::printf("    (decode against the floor run by run, each at the probe read right after it: median %.2fx, "
                        "%.2fx to %.2fx)\n",
                        byRun.median(), byRun.minimum(), highest);
        }
        if (const auto& sgemm = m.sgemmProbeFlopsPerSecond.values; sgemm.size() == 1) {
            std::printf("    (the SGEMM probe read %.1f GFLOP/s just before these runs)\n", sgemm[0] / 1e9);
        }
    }
    if (m.peers.is_null()) return;
    const json peers = m.peers.value("peers", json::object()), errors = m.peers.value("errors", json::object());
    for (const auto& [peer, data] : peers.items()) {
        double v[4];
        for (size_t i = 0; i < kFixedWorkFigures.size(); ++i) v[i] = peerFigureMedian(data, kFixedWorkFigures[i]);
        std::printf("  %-30s %12.2f %14.3f %14.3f %14.4f\n", peer.c_str(), v[0], v[1], v[2], v[3]);
        printRatios(("  hearsay/" + peer).c_str(), m.ratios.is_object() ? m.ratios.value(peer, json()) : json());
    }
    if (m.rounds.empty()) {
        if (const auto& read = m.peersProbeBytesPerSecond.values; read.size() == 2) {
            std::printf("    (the probe read %.1f GB/s before the peers ran and %.1f after)\n", read[0] / 1e9, read[1] / 1e9);
        }
        if (const auto& sgemm = m.sgemmProbeFlopsPerSecond.values; sgemm.size() == 3) {
            std::printf("    (the SGEMM probe read %.1f GFLOP/s before Hearsay's runs, %.1f before the peers ran and %.1f after)\n",
                        sgemm[0] / 1e9, sgemm[1] / 1e9, sgemm[2] / 1e9);
        }
    } else {
        printRounds(m);
    }
    for (const auto& [peer, error] : errors.items()) {
        std::printf("  %-30s not measured: %s\n", peer.c_str(), (error.is_string() ? error.get<std::string>() : error.dump()).c_str());
    }
}

void printDecodeProfile(const ModelReport& m) {
    const DecodeProfile& p = *m.decodeProfile;
    std::printf("\n%s: one single-token decode step, op by op (%d steps, cache 0..%d; the ops timed one by one)\n",
                m.name.c_str(), p.steps, p.steps - 1);
    if (p.ops.empty()) {
        std::printf("  this backend does not time its ops\n");
        return;
    }
    std::printf("  %-52s %9s %10s %7s %10s %8s\n", "op", "calls/tok", "ms/token", "share", "MB/token", "GB/s");
    double sum = 0.0;
    for (const OpTime& op : p.ops) sum += op.ms;
    const double steps = p.steps;
    for (const OpTime& op : p.ops) {
        const double ms = op.ms / steps;
        if (op.bytes > 0) {
            std::printf("  %-52s %9.2f %10.4f %6.1f%% %10.2f %8.1f\n", op.op.c_str(), double(op.calls) / steps, ms,
                        100.0 * ms / p.msPerToken, op.bytes / steps / 1e6, op.bytes / (op.ms * 1e6));
        } else {
            std::printf("  %-52s %9.2f %10.4f %6.1f%% %10s %8s\n", op.op.c_str(), double(op.calls) / steps, ms,
                        100.0 * ms / p.msPerToken, "-", "-");
        }
    }
    const double outside = p.msPerToken - sum / steps;
    std::printf("  %-52s %9s %10.4f %6.1f%%\n", "between ops (session, uploads, logits download)", "", outside,
                100.0 * outside / p.msPerToken);
    std::printf("  %-52s %9s %10.4f\n", "step", "", p.msPerToken);
}

void printEncoderProfile(const ModelReport& m) {
    const EncoderProfile& p = *m.encoderProfile;
    std::printf("\n%s: one encoder run (a 30 s window and its cross-attention K/V), op by op (the ops timed one by one)\n",
                m.name.c_str());
    if (p.ops.empty()) {
        std::printf("  this backend does not time its ops\n");
        return;
    }
    std::printf("  %-52s %7s %10s %7s %9s %8s\n", "op", "calls", "ms", "share", "GFLOP", "GFLOP/s");
    double sum = 0.0, flops = 0.0, flopMs = 0.0;
    for (const OpTime& op : p.ops) {
        sum += op.ms;
        if (op.flops > 0) {
            flops += op.flops;
            flopMs += op.ms;
            std::printf("  %-52s %7lld %10.2f %6.1f%% %9.2f %8.1f\n", op.op.c_str(), static_cast<long long>(op.calls), op.ms,
                        100.0 * op.ms / p.ms, op.flops / 1e9, op.flops / (op.ms * 1e6));
        } else {
            std::printf("  %-52s %7lld %10.2f %6.1f%% %9s %8s\n", op.op.c_str(), static_cast<long long>(op.calls), op.ms,
                        100.0 * op.ms / p.ms, "-", "-");
        }
    }
    const double outside = p.ms - sum;
    std::printf("  %-52s %7s %10.2f %6.1f%%\n", "between ops", "", outside, 100.0 * outside / p.ms);
    std::printf("  %-52s %7s %10.2f %7s %9.2f %8.1f\n", "encoder (the products and attention's rate over their time)", "",
                p.ms, "", flops / 1e9, flopMs > 0 ? flops / (flopMs * 1e6) : 0.0);
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

// The peaks the floors divide by: measured by the probe unless given on the command line.
// CUDA: the GPU probe (kernels/peak_rates.h), with the spec sheet's figures for known devices;
// `gpu` gets the device's description. CPU: the SGEMM and read probe.
PeakRates peakRates(const Settings& s, std::optional<GpuInfo>* gpu) {
    PeakRates peak;
    if (s.backend == BackendKind::Cuda) {
#ifdef HEARSAY_HAVE_CUDA
        if (s.peakGflops <= 0 || s.peakGbs <= 0) {
            std::fprintf(stderr, "bench: measuring the GPU's attainable peaks\n");
            auto probe = cuda_module::measurePeakRates(0);
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
            if (auto info = cuda_module::describeGpu(0)) *gpu = info.value();
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
    json list = json::array();
    for (const auto& size : s.sizes) {
        auto config = WhisperConfig::fromName(size);
        if (!config) return fail(config.message());
        const WorkFloors f = computeFloors(config.value(), s.work, peak, bytes);
        std::printf("  %-16s %12.1f %12.2f %14.1f %14.3f %14.3f %14.4f\n", size.c_str(), f.encoderFlops / 1e9, f.encoderMs,
                    f.decodeBytesPerToken / 1e6, f.decodeMsPerToken, f.batchMsPerToken, f.promptMsPerToken);
        json j = toJson(f);
        j["name"] = size;
        list.push_back(j);
    }
    if (!s.json.empty()) {
        json doc;
        doc["schema"] = "hearsay-bench-floors/1";
        doc["date"] = utcTimestamp();
        MachineInfo machine = collectMachineInfo();
        machine.gpu = gpu;
        doc["machine"] = toJson(machine);
        doc["peaks"] = toJson(peak);
        doc["elementBytes"] = toJson(bytes);
        doc["work"] = toJson(s.work);
        doc["floors"] = std::move(list);
        std::ofstream out(s.json);
        out << dumpJson(doc, 1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

json reportHeader(const std::string& schema, const std::string& date, const std::vector<std::string>& args,
                  const MachineInfo& machine) {
    json doc;
    doc["schema"] = schema;
    doc["date"] = date;
    std::string command = "hearsay-cli bench";
    for (const auto& a : args) command += " " + a;
    doc["command"] = command;
    doc["machine"] = toJson(machine);
    doc["machine"]["loadAverageAtEnd"] = collectMachineInfo().loadAverage;
    return doc;
}

} // namespace hearsay::cli::bench
