// Interleaved rounds of real-file transcriptions, their medians and comparisons.
#include "core/bench/real_file_bench.h"
#include "core/util/json_text.h"

#include "core/bench/subprocess.h"
#include "core/transcript/word_error_rate.h"
#include "core/util/mapped_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;

namespace hearsay {
namespace fs = std::filesystem;

double RealFileFigures::medianMs() const {
    if (transcribeMs.empty()) return 0.0;
    std::vector<double> v = transcribeMs;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const RealFileFigures* RealFileCase::find(const std::string& program) const {
    for (const auto& p : programs) {
        if (p.program == program) return &p;
    }
    return nullptr;
}

namespace {

// The ggml conversion a real-file program reads: f16 for whisper.cpp, the dtype of the -q8_0 and
// -q5_0 variants; empty for the programs that read the model directory (and unknown names).
std::string ggmlDtypeOf(const std::string& program) {
    if (program == "whisper.cpp") return "f16";
    for (const std::string dtype : {"q8_0", "q5_0"})
        if (program == "hearsay-" + dtype || program == "whisper.cpp-" + dtype) return dtype;
    return {};
}

} // namespace

Result<std::vector<RealFileProgram>> realFilePrograms(const RealFilePlan& plan) {
    std::vector<RealFileProgram> programs;
    const std::string beam = std::to_string(plan.beamSize), threads = std::to_string(plan.threads);
    auto peer = [&](const std::string& name, const std::string& program, std::vector<std::string> model) {
        std::vector<std::string> argv = {plan.python, plan.peersScript, "--program", program, "--audio", plan.audio,
                                         "--beam", beam, "--threads", threads, "--language", plan.language, "--eot",
                                         std::to_string(plan.eot), "--name", name, "--json", "{out}"};
        argv.insert(argv.end(), model.begin(), model.end());
        programs.push_back({name, argv});
    };
    // The conversion `name` reads (the plan holds one per dtype the programs need).
    auto ggml = [&](const std::string& name) {
        const auto it = plan.ggml.find(ggmlDtypeOf(name));
        return it == plan.ggml.end() ? std::string() : it->second;
    };
    for (const std::string& name : plan.programs) {
        const bool converted = !ggmlDtypeOf(name).empty();
        if (name == "hearsay" || (converted && name.rfind("hearsay-", 0) == 0)) {
            const std::string model = name == "hearsay" ? plan.ct2 : ggml(name);
            programs.push_back({name, {plan.hearsay, "bench-real-file", "--model", model, "--audio", plan.audio,
                                       "--beam-size", beam, "--threads", threads, "--language", plan.language, "--name",
                                       name, "--json", "{out}"}});
        } else if (name == "faster-whisper-float32" || name == "faster-whisper-int8") {
            peer(name, name, {"--ct2", plan.ct2});
        } else if (converted) {  // whisper.cpp and its -q8_0, -q5_0
            peer(name, "whisper.cpp", {"--ggml", ggml(name), "--whisper-cli", plan.whisperCli});
        } else {
            return makeError("unknown real-file program '" + name +
                             "' (hearsay, hearsay-q8_0, hearsay-q5_0, faster-whisper-float32, faster-whisper-int8, "
                             "whisper.cpp, whisper.cpp-q8_0, whisper.cpp-q5_0)");
        }
    }
    return programs;
}

std::vector<std::string> realFileGgmlDtypes(const std::vector<std::string>& programs) {
    std::vector<std::string> dtypes;
    for (const std::string dtype : {"f16", "q8_0", "q5_0"}) {
        if (std::any_of(programs.begin(), programs.end(), [&](const std::string& p) { return ggmlDtypeOf(p) == dtype; }))
            dtypes.push_back(dtype);
    }
    return dtypes;
}

RealFileCase runRealFileCase(const std::string& model, const std::string& audio, int beamSize,
                             const std::vector<RealFileProgram>& programs, int rounds, const std::string& workDir) {
    RealFileCase result;
    result.model = model;
    result.audio = audio;
    result.beamSize = beamSize;
    {
        std::ifstream in(fs::path(audio).replace_extension(".txt"));
        std::stringstream text;
        text << in.rdbuf();
        result.reference = text.str();
    }
    for (const auto& p : programs) result.programs.push_back(RealFileFigures{p.name, {}, {}, true, {}, {}});
    std::error_code ec;
    fs::create_directories(workDir, ec);
    for (int round = 0; round < rounds; ++round) {
        for (size_t i = 0; i < programs.size(); ++i) {
            RealFileFigures& figures = result.programs[i];
            if (!figures.error.empty()) continue;
            const fs::path out = fs::path(workDir) / ("real-" + programs[i].name + ".json");
            fs::remove(out, ec);
            std::vector<std::string> argv = programs[i].argv;
            for (auto& a : argv) {
                if (a == "{out}") a = out.string();
            }
            std::fprintf(stderr, "bench: real file %s, %s, beam %d, round %d: %s\n", fs::path(audio).filename().c_str(),
                         model.c_str(), beamSize, round + 1, programs[i].name.c_str());
            auto run = runProcess(argv);
            if (!run || run->exitCode != 0) {
                figures.error = !run ? run.message() : "exit " + std::to_string(run->exitCode);
                continue;
            }
            auto text = readTextFile(out);
            if (!text) {
                figures.error = "no result: " + text.message();
                continue;
            }
            auto document = parseJson(text.value());
            if (!document) {
                figures.error = "bad result: " + document.message();
                continue;
            }
            auto parsed = realFileRunFromJson(document.value());
            if (!parsed) {
                figures.error = parsed.message();
                continue;
            }
            if (!figures.transcribeMs.empty() && parsed->tokens != figures.last.tokens) figures.tokensStable = false;
            figures.transcribeMs.push_back(parsed->transcribeMs);
            figures.last = parsed.value();
            auto version = document->find("version");
            figures.version = version != document->end() && version->is_string() ? version->get<std::string>() : std::string();
        }
    }
    return result;
}

int tokenEditDistance(const std::vector<int>& a, const std::vector<int>& b) {
    std::vector<int> previous(b.size() + 1), current(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
    for (size_t i = 1; i <= a.size(); ++i) {
        current[0] = static_cast<int>(i);
        for (size_t j = 1; j <= b.size(); ++j) {
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

double tokenAgreement(const std::vector<int>& a, const std::vector<int>& b) {
    const size_t longest = std::max(a.size(), b.size());
    if (longest == 0) return 1.0;
    return 1.0 - double(tokenEditDistance(a, b)) / double(longest);
}

std::string werReference(const RealFileCase& c, std::string* source) {
    if (!c.reference.empty()) {
        if (source) *source = "reference text";
        return c.reference;
    }
    if (const RealFileFigures* fw = c.find("faster-whisper-float32"); fw && fw->error.empty()) {
        if (source) *source = "faster-whisper-float32's transcript";
        return fw->last.text;
    }
    if (source) *source = "none";
    return {};
}

json toJson(const RealFileCase& c) {
    json j;
    j["model"] = c.model;
    j["audio"] = c.audio;
    j["beamSize"] = c.beamSize;
    std::string source;
    const std::string reference = werReference(c, &source);
    j["werReference"] = source;
    const RealFileFigures* hearsay = c.find("hearsay");
    json list = json::array();
    for (const auto& p : c.programs) {
        json pj;
        pj["program"] = p.program;
        if (!p.error.empty()) {
            pj["error"] = p.error;
            list.push_back(pj);
            continue;
        }
        pj["transcribeMs"] = p.transcribeMs;
        pj["medianMs"] = p.medianMs();
        pj["realTimeFactor"] = p.last.audioSeconds > 0 ? p.medianMs() / 1000.0 / p.last.audioSeconds : 0.0;
        pj["textTokens"] = p.last.textTokens;
        pj["tokensStable"] = p.tokensStable;
        pj["peakResidentBytes"] = p.last.peakResidentBytes;
        pj["audioSeconds"] = p.last.audioSeconds;
        pj["text"] = p.last.text;
        pj["version"] = p.version;
        if (!reference.empty()) pj["wer"] = wordErrors(reference, p.last.text).rate();
        if (hearsay && hearsay->error.empty() && p.medianMs() > 0) {
            pj["hearsayOverThis"] = hearsay->medianMs() / p.medianMs();
            pj["tokenAgreementWithHearsay"] = tokenAgreement(hearsay->last.tokens, p.last.tokens);
        }
        list.push_back(pj);
    }
    j["programs"] = std::move(list);
    return j;
}

std::string formatRealFileCase(const RealFileCase& c) {
    std::string source;
    const std::string reference = werReference(c, &source);
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "\n%s, %s, beam %d (medians of the rounds; WER against %s)\n", c.model.c_str(),
                  fs::path(c.audio).filename().c_str(), c.beamSize, source.c_str());
    out += line;
    std::snprintf(line, sizeof line, "  %-24s %10s %7s %7s %9s %10s %9s %7s\n", "program", "ms", "RTF", "tokens",
                  "peak MiB", "hearsay/x", "tok agree", "WER");
    out += line;
    const RealFileFigures* hearsay = c.find("hearsay");
    for (const auto& p : c.programs) {
        if (!p.error.empty()) {
            out += "  " + p.program + ": not measured (" + p.error + ")\n";
            continue;
        }
        const double ms = p.medianMs();
        const bool compare = hearsay && hearsay->error.empty() && ms > 0;
        std::snprintf(line, sizeof line, "  %-24s %10.1f %7.3f %7d %9.1f %9.2fx %9.4f %7.4f%s\n", p.program.c_str(), ms,
                      p.last.audioSeconds > 0 ? ms / 1000.0 / p.last.audioSeconds : 0.0, p.last.textTokens,
                      double(p.last.peakResidentBytes) / (1024.0 * 1024.0), compare ? hearsay->medianMs() / ms : 0.0,
                      compare ? tokenAgreement(hearsay->last.tokens, p.last.tokens) : 0.0,
                      reference.empty() ? 0.0 : wordErrors(reference, p.last.text).rate(),
                      p.tokensStable ? "" : " (tokens differ between rounds)");
        out += line;
    }
    return out;
}

} // namespace hearsay
