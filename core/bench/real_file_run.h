// One transcription of a real recording for the benchmark's real-file section: the options all
// programs share (temperature 0 without fallback, conditioning on previous text, no VAD,
// timestamps, beam 1 or 5 with CTranslate2's beam rules, a fixed language), the wall time from
// the WAV file to the last segment, and the tokens decoded. Each run happens in a fresh child
// process (hearsay-cli bench-real-file) so its peak memory is its own, like the peers'.
#pragma once

#include "core/decoding/transcriber.h"
#include "core/nn/inference_session.h"
#include "core/text/tokenizer.h"
#include <nlohmann/json_fwd.hpp>
#include "core/util/result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace hearsay {

// What every program is asked to do with the file.
struct RealFileTask {
    std::string audio;        // 16 kHz mono 16-bit WAV
    int beamSize = 1;         // 1: greedy; > 1: beam search (CTranslate2's rules for Hearsay)
    std::string language = "en";
};

// One program's run of a task (Hearsay's here; the peers' come from scripts/bench/real_peers.py
// in the same JSON form).
struct RealFileRun {
    std::string program;         // "hearsay", "faster-whisper-int8", "whisper.cpp", ...
    double transcribeMs = 0.0;   // reading the file through the last segment; model load excluded
    int textTokens = 0;          // text tokens of all segments (timestamps and specials excluded)
    std::vector<int> tokens;     // those tokens, in order (agreement between programs)
    double audioSeconds = 0.0;
    std::string text;
    size_t peakResidentBytes = 0;  // the process's VmHWM at the end (model, caches, everything)
    double realTimeFactor() const { return audioSeconds > 0.0 ? transcribeMs / 1000.0 / audioSeconds : 0.0; }
};

// The transcription options of a task as Hearsay's transcriber takes them.
TranscribeOptions realFileOptions(const RealFileTask& task);

// Reads the WAV and transcribes it with `session` (which must hold task.beamSize beams), timing
// both. The session is warmed first on one second of the file (untimed), as a server would be.
Result<RealFileRun> runRealFile(InferenceSession& session, const Tokenizer& tokenizer, const RealFileTask& task);

nlohmann::json toJson(const RealFileRun& run);
// The inverse of toJson (the parent reads its children's and the peers' runs).
Result<RealFileRun> realFileRunFromJson(const nlohmann::json& json);

} // namespace hearsay
