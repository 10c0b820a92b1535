// The benchmark's real-file section: several programs (Hearsay on the CTranslate2 directory and
// on its q8_0 conversion, faster-whisper float32 and int8, whisper.cpp's CLI on the converted
// ggml) transcribe the same recording with the same options, each round a fresh process per
// program, rounds interleaved (Hearsay, peer, Hearsay, peer...) so a noisy machine affects them
// alike; medians, ratios Hearsay/peer, token agreement and word error rates.
#pragma once

#include "core/bench/real_file_run.h"
#include <nlohmann/json_fwd.hpp>
#include "core/util/result.h"

#include <map>
#include <string>
#include <vector>

namespace hearsay {

// One program of a case: the command of one round; the argument "{out}" is replaced by the path
// of the JSON file (a RealFileRun) the command must write.
struct RealFileProgram {
    std::string name;
    std::vector<std::string> argv;
};

// What the section runs for one case: the inputs and tools, and the programs wanted by name:
// hearsay (the CTranslate2 directory), hearsay-q8_0 and hearsay-q5_0 (its ggml q8_0 and q5_0
// conversions), faster-whisper-float32, faster-whisper-int8 (the directory), whisper.cpp (the ggml
// f16 conversion), whisper.cpp-q8_0 and whisper.cpp-q5_0 (the same files as Hearsay's).
struct RealFilePlan {
    std::string hearsay;       // this executable (runs `bench-real-file`)
    std::string python;        // interpreter for scripts/bench/real_peers.py
    std::string peersScript;   // that script
    std::string whisperCli;    // whisper.cpp's CLI
    std::string ct2;           // the model directory
    std::map<std::string, std::string> ggml;  // its conversions by dtype (f16, q8_0, q5_0: hearsay-cli convert --to ggml)
    std::string audio;
    std::string language = "en";
    int beamSize = 1;
    int threads = 2;
    int eot = 0;               // end-of-text id of the model (peers count the tokens below it)
    std::vector<std::string> programs;
};

// The command of each wanted program; an unknown name is an error naming the choices.
Result<std::vector<RealFileProgram>> realFilePrograms(const RealFilePlan& plan);
// The ggml dtypes the wanted programs read (f16 for whisper.cpp, q8_0 and q5_0 for their -q8_0 and
// -q5_0 variants), for the conversions to make.
std::vector<std::string> realFileGgmlDtypes(const std::vector<std::string>& programs);

// What one program did over the rounds.
struct RealFileFigures {
    std::string program;
    std::vector<double> transcribeMs;  // one per round
    RealFileRun last;                  // the last round's run (tokens, text, peak memory)
    bool tokensStable = true;          // every round decoded the same tokens
    std::string version;               // what the peer reports about itself
    std::string error;                 // why it has no figures (the other programs still run)
    double medianMs() const;
};

// The same file, model and beam size through every program.
struct RealFileCase {
    std::string model;       // label (the CTranslate2 directory's name)
    std::string audio;
    int beamSize = 1;
    std::string reference;   // the words said (WAV's sibling .txt), empty when unknown
    std::vector<RealFileFigures> programs;
    const RealFileFigures* find(const std::string& program) const;
};

// Runs `rounds` rounds of every program in turn (round-robin), the JSON of each run written under
// workDir. A program that fails is recorded with its error and skipped in later rounds.
RealFileCase runRealFileCase(const std::string& model, const std::string& audio, int beamSize,
                             const std::vector<RealFileProgram>& programs, int rounds, const std::string& workDir);

// Levenshtein distance between two token sequences, and 1 - distance / max(length): 1 = identical.
int tokenEditDistance(const std::vector<int>& a, const std::vector<int>& b);
double tokenAgreement(const std::vector<int>& a, const std::vector<int>& b);

// The text a case's word error rates are measured against: its reference when known, else the
// transcript of faster-whisper-float32 (then named so in the report).
std::string werReference(const RealFileCase& c, std::string* source = nullptr);

nlohmann::json toJson(const RealFileCase& c);
// Markdown-ready lines: one row per program with median ms, RTF, tokens, ratio against Hearsay,
// token agreement with Hearsay and WER.
std::string formatRealFileCase(const RealFileCase& c);

} // namespace hearsay
