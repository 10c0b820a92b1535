// hearsay-cli bench: the real-file section (every program on real recordings) and the streaming
// section (files played as a microphone).
#include "app/cli/bench/bench_cli.h"

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
#include "core/engine/transcription_request.h"
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

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;

namespace hearsay::cli::bench {

// --real-files: every program transcribes every file with every model and beam size, rounds
// interleaved; prints one table per case and writes them all to --json.
int runRealFileSection(const Settings& s, const std::vector<std::string>& args) {
    if (s.realModels.empty()) return fail("--real-files needs --real-models (CTranslate2 directories)");
    const fs::path source = sourceTree();
    if (source.empty()) return fail(kNoScripts, 1);
    std::error_code ec;
    RealFilePlan plan;
    plan.hearsay = currentExecutablePath();
    plan.python = peersPython(s, source);
    plan.peersScript = (source / "scripts/bench/real_peers.py").string();
    plan.whisperCli = !s.whisperCli.empty() ? s.whisperCli : (source / "build-whispercpp/build/bin/whisper-cli").string();
    plan.threads = s.threads;
    plan.language = s.language;
    plan.programs = s.realPrograms;
    MachineInfo machine = collectMachineInfo();
    const std::string date = utcTimestamp();
    std::printf("hearsay bench, real files, %s\n  machine: %s, %d CPUs (%s), %.1f GiB, load average %.2f\n  build: %s, %s, commit %s\n",
                date.c_str(), machine.cpuModel.c_str(), machine.logicalCpus, machine.cpuFlags.c_str(),
                double(machine.memoryBytes) / (1024.0 * 1024.0 * 1024.0), machine.loadAverage, buildType(),
                compilerDescription().c_str(), buildCommit());
    json cases = json::array();
    for (const std::string& model : s.realModels) {
        const std::string name = fs::path(model).filename().string().empty() ? fs::path(model).parent_path().filename().string()
                                                                              : fs::path(model).filename().string();
        plan.ct2 = model;
        // whisper.cpp and hearsay-q8_0 / -q5_0 read conversions of the same directory.
        for (const std::string& dtype : realFileGgmlDtypes(plan.programs)) {
            const fs::path out = fs::path(s.workDir) / (name + "-" + dtype + ".ggml.bin");
            plan.ggml[dtype] = out.string();
            if (fs::exists(out, ec)) continue;
            fs::create_directories(s.workDir, ec);
            std::fprintf(stderr, "bench: converting %s to ggml %s\n", model.c_str(), dtype.c_str());
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
        json doc = reportHeader("hearsay-bench-real/1", date, args, machine);
        doc["build"] = toJson(thisBuild());
        doc["threads"] = s.threads;
        doc["rounds"] = s.realRounds;
        doc["cases"] = std::move(cases);
        std::ofstream out(s.json);
        out << dumpJson(doc, 1) << "\n";
        if (!out) return fail("cannot write '" + s.json + "'", 1);
    }
    return 0;
}

#ifdef HEARSAY_HAVE_STREAMING
namespace {

// Every combination of the streaming lists (an empty list: the session's default).
std::vector<StreamingOptions> streamingVariants(const Settings& s) {
    const StreamingOptions defaults;
    auto orDefault = [](auto list, auto value) { return list.empty() ? decltype(list){value} : list; };
    std::vector<StreamingOptions> out;
    for (double step : orDefault(s.steps, defaults.stepSeconds))
    for (const std::string& commit : orDefault(s.commits, std::string(commitPolicyName(defaults.commit))))
    for (int silence : orDefault(s.minSilencesMs, defaults.vad.minSilenceMs))
    for (double padding : s.audioContexts)
    for (bool wordTimings : s.wordTimings)
    for (int beams : s.streamingBeams) {
        StreamingOptions o;
        o.decoding.beamSize = beams;  // as asked: TranscriptionRequest maps it (runStreamingSection)
        o.stepSeconds = step;
        o.commit = parseCommitPolicy(commit).value_or(defaults.commit);
        o.vad.minSilenceMs = silence;
        o.audioContextPaddingSeconds = padding;
        o.wordTimings = wordTimings;
        out.push_back(o);
    }
    return out;
}

} // namespace
#endif

// --streaming: every file through a live session of every model, at --speed.
int runStreamingSection(const Settings& s) {
#ifdef HEARSAY_HAVE_STREAMING
    if (s.realModels.empty()) return fail("--streaming needs --real-models (the models to stream with)");
    std::vector<StreamingBenchCase> cases;
    json report = json::array();
    const MachineInfo machine = collectMachineInfo();
    std::printf("hearsay bench, streaming, %s\n  machine: %s, %d CPUs (%s), %.1f GiB, load average %.2f\n  build: %s, %s, commit %s, "
                "%d threads\n\n",
                utcTimestamp().c_str(), machine.cpuModel.c_str(), machine.logicalCpus, machine.cpuFlags.c_str(),
                double(machine.memoryBytes) / (1024.0 * 1024.0 * 1024.0), machine.loadAverage, buildType(),
                compilerDescription().c_str(), buildCommit(), s.threads);
    for (const std::string& model : s.realModels) {
        auto engine = Engine::load(model, EngineOptions{BackendKind::Cpu, BackendOptions{s.threads, 0}});
        if (!engine) return fail(engine.message());
        for (const std::string& audio : s.streamingFiles)
        for (StreamingOptions options : streamingVariants(s)) {
            TranscriptionRequest request;
            request.language = s.language;
            request.beamSize = std::max(1, options.decoding.beamSize);
            request.bestOf = 0;  // the streaming session's: one sample at a fallback temperature
            request.stepSeconds = options.stepSeconds;
            auto validated = request.validate(engine->model().config());
            if (!validated) return fail(validated.message());
            options.decoding = validated->decoding;
            std::fprintf(stderr, "hearsay-cli bench: streaming %s with %s at %.1fx\n", audio.c_str(), model.c_str(), s.speed);
            auto c = runStreamingBenchmark(engine.value(), fs::path(model).filename().string(), audio, options, s.speed);
            if (!c) return fail(c.message());
            report.push_back(toJson(c.value()));
            cases.push_back(std::move(c).value());
        }
    }
    std::printf("%s", formatStreamingBenchmark(cases).c_str());
    if (!s.json.empty()) {
        json doc;
        doc["machine"] = toJson(machine);
        doc["streaming"] = report;
        std::ofstream(s.json) << dumpJson(doc, 2) << "\n";
    }
    return 0;
#else
    (void)s;
    return fail("this build has no streaming (an engine-only build)");
#endif
}

} // namespace hearsay::cli::bench
