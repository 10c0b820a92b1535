// hearsay-cli bench: the peers (transformers, faster-whisper, whisper.cpp) through scripts/bench/peers.py.
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

const char* const kNoScripts =
    "the bench's peer scripts (scripts/bench/peers.py) are not in a folder above hearsay-cli nor in its "
    "share/hearsay; set HEARSAY_BENCH_ROOT to the folder that holds scripts/bench";

std::string peersPython(const Settings& s, const fs::path& source) {
    std::error_code ec;
    const fs::path venv = source / ".venv-bench/bin/python";
    return !s.python.empty() ? s.python : fs::exists(venv, ec) ? venv.string() : "python3";
}

Result<std::string> ensureCt2Conversion(const ModelReport& m) {
    const fs::path ct2 = fs::path(m.hfPath).parent_path() / (fs::path(m.hfPath).filename().string() + "-ct2");
    std::error_code ec;
    if (!fs::exists(ct2 / "model.bin", ec)) {
        std::fprintf(stderr, "bench: converting %s to CTranslate2 float32\n", m.hfPath.c_str());
        auto made = runSelf({"convert", "--to", "ct2", "--dtype", "f32", "--force", m.hfPath, ct2.string()});
        if (!made) return makeError("the CTranslate2 conversion for faster-whisper failed: " + made.message());
    }
    return ct2.string();
}

Result<json> runPeers(const Settings& s, const ModelReport& m) {
    const fs::path source = sourceTree();
    if (source.empty()) return makeError(kNoScripts);
    std::error_code ec;
    const std::string python = peersPython(s, source);
    const fs::path out = fs::path(s.workDir) / (m.name + "-peers.json");
    fs::remove(out, ec);  // a stale file from an earlier run must not pass for this run's results
    std::vector<std::string> argv = {python, (source / "scripts/bench/peers.py").string(), "--threads",
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
    if (!m.hfPath.empty()) argv.insert(argv.end(), {"--hf", m.hfPath});
    if (!m.ggmlPath.empty()) argv.insert(argv.end(), {"--ggml", m.ggmlPath});
    const std::string list = peersToRun(s);
    if (!list.empty()) argv.insert(argv.end(), {"--peers", list});
    // faster-whisper reads a CTranslate2 float32 conversion of the same weights; written by our
    // own converter, so that peer needs neither transformers nor torch.
    if (!m.hfPath.empty() && (list.empty() || list.find("faster-whisper") != std::string::npos)) {
        auto ct2 = ensureCt2Conversion(m);
        if (!ct2) return ct2.error();
        argv.insert(argv.end(), {"--ct2", ct2.value()});
    }
    std::fprintf(stderr, "bench: running peers for %s\n", m.name.c_str());
    auto run = runProcess(argv);
    if (!run) return run.error();
    auto text = readTextFile(out);
    if (!text) return makeError("peers.py wrote no results (exit " + std::to_string(run->exitCode) + "): " + text.message());
    auto document = parseJson(text.value());
    if (!document) return makeError(out.string() + ": " + document.message());
    if (!document->is_object()) return makeError(out.string() + ": not a JSON object");
    return document;
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

} // namespace hearsay::cli::bench
