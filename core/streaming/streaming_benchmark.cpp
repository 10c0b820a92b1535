// The streaming section of the benchmark (see streaming_benchmark.h).
#include "core/streaming/streaming_benchmark.h"
#include "core/util/json_text.h"

#include "core/audio/audio_file.h"
#include "core/audio/simulated_live_source.h"
#include "core/decoding/transcriber.h"
#include "core/streaming/streaming_session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

using nlohmann::json;

namespace hearsay {

Result<StreamingBenchCase> runStreamingBenchmark(const Engine& engine, const std::string& model, const std::string& audio,
                                                 const StreamingOptions& options, double speed) {
    StreamingBenchCase c;
    c.model = model;
    c.audio = audio;
    c.speed = speed;
    c.audioContextPadding = options.audioContextPaddingSeconds;
    c.wordTimings = options.wordTimings;
    c.stepSeconds = options.stepSeconds;
    c.commit = options.commit;
    c.minSilenceMs = options.vad.minSilenceMs;
    c.beams = std::max(1, options.decoding.beamSize);

    // The offline transcript of the same audio.
    auto decoded = decodeAudioFile(audio);
    if (!decoded) return decoded.error();
    SessionOptions sessionOptions;
    sessionOptions.maxBeams = std::max(1, options.decoding.beamSize);
    auto offlineSession = engine.createSession(sessionOptions);
    if (!offlineSession) return offlineSession.error();
    TranscribeOptions offline;
    offline.decoding = options.decoding;
    offline.temperatures = {0.0f};
    auto transcript = transcribe(*offlineSession.value(), engine.tokenizer(), decoded->samples, offline);
    if (!transcript) return transcript.error();
    c.offlineText = transcript->text;
    offlineSession.value().reset();

    SimulatedLiveOptions live;
    live.speed = speed;
    live.ringSeconds = 20.0 * std::max(1.0, speed);
    auto source = SimulatedLiveSource::open(audio, live);
    if (!source) return source.error();
    std::vector<StreamingStep> steps;
    StreamingCallbacks callbacks;
    callbacks.step = [&](const StreamingStep& s) { steps.push_back(s); };
    callbacks.committed = [&](const CommittedText& t) {
        for (size_t i = 0; i < t.commitLatency.size() && i < t.latencyWordEnds.size(); ++i)
            c.wordLatencies.push_back({t.latencyWordEnds[i], t.tentativeLatency[i], t.commitLatency[i]});
    };
    auto session = StreamingSession::create(engine, *source.value(), options, callbacks);
    if (!session) return session.error();
    c.summary = session.value()->run();
    if (!c.summary.error.empty()) return makeError(audio + ": " + c.summary.error);
    c.vsOffline = wordErrors(c.offlineText, c.summary.text);

    int decoded_ = 0;
    const double stepSeconds = options.stepSeconds;
    for (const StreamingStep& s : steps) {
        c.maxBehindSeconds = std::max(c.maxBehindSeconds, s.behindSeconds);
        if (s.behindSeconds > stepSeconds) ++c.stepsBehind;
        if (!s.decoded) continue;
        ++decoded_;
        c.meanWindowSeconds += s.windowSeconds;
        c.meanEncoderMs += s.encoderMs;
        c.meanMsPerToken += s.msPerToken;
        c.meanStepMs += s.stepMs;
        c.meanAudioContext += s.audioContext;
    }
    if (decoded_ > 0) {
        c.meanWindowSeconds /= decoded_;
        c.meanEncoderMs /= decoded_;
        c.meanMsPerToken /= decoded_;
        c.meanStepMs /= decoded_;
        c.meanAudioContext /= decoded_;
    }
    return c;
}

json toJson(const LatencySummary& l) {
    json j;
    j["count"] = l.count;
    j["median"] = l.median;
    j["p90"] = l.p90;
    j["max"] = l.max;
    return j;
}

json toJson(const StreamingBenchCase& c) {
    json j;
    j["model"] = c.model;
    j["audio"] = c.audio;
    j["speed"] = c.speed;
    j["audio_seconds"] = c.summary.audioSeconds;
    j["steps"] = c.summary.steps;
    j["decoded_steps"] = c.summary.decodedSteps;
    j["utterances"] = c.summary.utterances;
    j["real_time_factor"] = c.summary.realTimeFactor;
    j["tentative_latency"] = toJson(c.summary.tentativeLatency);
    j["commit_latency"] = toJson(c.summary.commitLatency);
    j["final_latency"] = toJson(c.summary.finalLatency);
    j["dropped_samples"] = int64_t(c.summary.droppedSamples);
    j["overflow_events"] = int64_t(c.summary.overflowEvents);
    j["mean_window_seconds"] = c.meanWindowSeconds;
    j["mean_encoder_ms"] = c.meanEncoderMs;
    j["mean_ms_per_token"] = c.meanMsPerToken;
    j["mean_step_ms"] = c.meanStepMs;
    j["mean_audio_context"] = c.meanAudioContext;
    j["audio_context_padding_s"] = c.audioContextPadding;
    j["word_timings"] = c.wordTimings;
    j["step_seconds"] = c.stepSeconds;
    j["commit"] = commitPolicyName(c.commit);
    j["min_silence_ms"] = c.minSilenceMs;
    j["beams"] = c.beams;
    j["recommits_prevented"] = c.summary.recommitsPrevented;
    j["max_behind_seconds"] = c.maxBehindSeconds;
    j["steps_behind"] = c.stepsBehind;
    j["wer_vs_offline"] = c.vsOffline.rate();
    j["word_errors_vs_offline"] = c.vsOffline.errors;
    j["offline_words"] = c.vsOffline.referenceWords;
    json words = json::array();
    for (const auto& w : c.wordLatencies) {
        json entry = json::array();
        for (double v : {w.end, w.tentative, w.commit}) entry.push_back(std::round(v * 1000.0) / 1000.0);
        words.push_back(entry);
    }
    j["word_latencies"] = words;  // [end of the word's audio, tentative, commit], seconds
    j["streaming_text"] = c.summary.text;
    j["offline_text"] = c.offlineText;
    return j;
}

std::string formatStreamingBenchmark(const std::vector<StreamingBenchCase>& cases) {
    std::string out =
        "| model | audio | speed | step s, commit, silence ms, beams | audio context | steps (decoded) | mean window s | encoder ms | ms/token | step ms | RTF | behind (max s, steps) "
        "| tentative latency median / p90 s | commit latency median / p90 s | final latency median / p90 s | WER vs offline | dropped |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    char line[1024];
    for (const auto& c : cases) {
        char context[64];
        if (c.audioContextPadding < 0.0) std::snprintf(context, sizeof context, "full (1500)");
        else std::snprintf(context, sizeof context, "window + %.1f s (mean %.0f)", c.audioContextPadding, c.meanAudioContext);
        if (!c.wordTimings) std::strncat(context, ", no word timings", sizeof context - std::strlen(context) - 1);
        std::snprintf(line, sizeof line,
                      "| %s | %s | %.1fx | %.2f, %s, %d, %d | %s | %d (%d) | %.1f | %.0f | %.2f | %.0f | %.3f | %.1f, %d | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f%% (%d/%d) | %llu |\n",
                      c.model.c_str(), std::filesystem::path(c.audio).filename().c_str(), c.speed, c.stepSeconds,
                      commitPolicyName(c.commit), c.minSilenceMs, c.beams, context, c.summary.steps,
                      c.summary.decodedSteps, c.meanWindowSeconds, c.meanEncoderMs, c.meanMsPerToken, c.meanStepMs,
                      c.summary.realTimeFactor, c.maxBehindSeconds, c.stepsBehind, c.summary.tentativeLatency.median,
                      c.summary.tentativeLatency.p90, c.summary.commitLatency.median, c.summary.commitLatency.p90,
                      c.summary.finalLatency.median, c.summary.finalLatency.p90,
                      100.0 * c.vsOffline.rate(), c.vsOffline.errors, c.vsOffline.referenceWords,
                      static_cast<unsigned long long>(c.summary.droppedSamples));
        out += line;
    }
    return out;
}

} // namespace hearsay
