// A timed transcription of one WAV file with the real-file section's options.
#include "core/bench/real_file_run.h"
#include "core/util/json_text.h"

#include "core/bench/peak_memory.h"
#include "core/frontend/pcm_wav.h"

#include <algorithm>
#include <chrono>

using nlohmann::json;

namespace hearsay {

TranscribeOptions realFileOptions(const RealFileTask& task) {
    TranscribeOptions options;
    options.decoding.language = task.language;
    options.decoding.beamSize = task.beamSize > 1 ? task.beamSize : 0;
    options.decoding.beamRules = BeamSearchRules::CTranslate2;  // as faster-whisper
    options.decoding.withoutTimestamps = false;
    options.temperatures = {0.0f};  // no fallback
    options.conditionOnPreviousText = true;
    return options;
}

Result<RealFileRun> runRealFile(InferenceSession& session, const Tokenizer& tokenizer, const RealFileTask& task) {
    const TranscribeOptions options = realFileOptions(task);
    {
        // Warm-up: one second of the file (lazily sized buffers, first-touch page faults).
        auto samples = readPcm16Wav(task.audio);
        if (!samples) return samples.error();
        const size_t n = std::min<size_t>(samples->size(), 16000);
        auto warm = transcribe(session, tokenizer, std::span<const float>(samples->data(), n), options);
        if (!warm) return makeError("warm-up: " + warm.message());
    }
    const auto start = std::chrono::steady_clock::now();
    auto samples = readPcm16Wav(task.audio);
    if (!samples) return samples.error();
    auto transcript = transcribe(session, tokenizer, samples.value(), options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!transcript) return transcript.error();
    RealFileRun run;
    run.program = "hearsay";
    run.transcribeMs = ms;
    run.audioSeconds = double(samples->size()) / 16000.0;
    const int eot = tokenizer.special().eot;
    for (const Segment& segment : transcript->segments) {
        for (int token : segment.tokens) {
            if (token < eot) run.tokens.push_back(token);
        }
        run.text += segment.text;
    }
    run.textTokens = static_cast<int>(run.tokens.size());
    run.peakResidentBytes = peakResidentBytes();
    return run;
}

json toJson(const RealFileRun& run) {
    json j;
    j["program"] = run.program;
    j["transcribeMs"] = run.transcribeMs;
    j["textTokens"] = run.textTokens;
    j["tokens"] = run.tokens;
    j["audioSeconds"] = run.audioSeconds;
    j["text"] = run.text;
    j["peakResidentBytes"] = run.peakResidentBytes;
    return j;
}

Result<RealFileRun> realFileRunFromJson(const json& j) {
    if (!j.is_object()) return makeError("a real-file run is not a JSON object");
    for (const char* key : {"program", "transcribeMs", "textTokens", "audioSeconds"}) {
        if (!j.contains(key)) return makeError(std::string("a real-file run lacks '") + key + "'");
    }
    // Written by other programs (the peers' scripts): a field of the wrong type is an error.
    RealFileRun run;
    try {
        run.program = j.at("program").get<std::string>();
        run.transcribeMs = j.at("transcribeMs").get<double>();
        run.textTokens = j.at("textTokens").get<int>();
        run.tokens = j.value("tokens", std::vector<int>());
        run.audioSeconds = j.at("audioSeconds").get<double>();
        run.text = j.value("text", std::string());
        run.peakResidentBytes = j.value("peakResidentBytes", size_t(0));
    } catch (const json::exception& e) {
        return makeError(std::string("a real-file run has a field of the wrong type: ") + e.what());
    }
    return run;
}

} // namespace hearsay
