// The benchmark's streaming section: a recording played at real-time pace (or faster) through a
// streaming session, with the figures a live user feels (latency from the end of a word's audio
// to its tentative and committed display, real-time factor, steps that fell behind, dropped
// audio) and the word error rate of the committed text against the offline transcript of the
// same audio by the same model.
#pragma once

#include "core/engine/engine.h"
#include "core/streaming/streaming_options.h"
#include "core/streaming/streaming_events.h"
#include "core/transcript/word_error_rate.h"
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace hearsay {

struct StreamingBenchCase {
    std::string model;             // label
    std::string audio;             // file
    double speed = 1.0;            // real-time multiple the file was played at
    double audioContextPadding = -1.0;  // StreamingOptions::audioContextPaddingSeconds (< 0: full context)
    bool wordTimings = true;       // StreamingOptions::wordTimings (off: latencies from character shares)
    double stepSeconds = 1.0;      // StreamingOptions::stepSeconds
    CommitPolicy commit = CommitPolicy::LocalAgreement;
    int minSilenceMs = 0;          // VadOptions::minSilenceMs: the silence that ends an utterance
    int beams = 1;                 // DecodingOptions::beamSize (1: greedy)
    StreamingSummary summary;      // the streaming run
    // Per committed word: the end of its audio (s), its tentative and commit latency (s).
    struct WordLatency {
        double end = 0.0, tentative = 0.0, commit = 0.0;
    };
    std::vector<WordLatency> wordLatencies;
    std::string offlineText;       // transcribe() of the whole file, the same beam size, no fallback
    WordErrors vsOffline;          // committed streaming text against offlineText
    double meanWindowSeconds = 0.0, meanEncoderMs = 0.0, meanMsPerToken = 0.0, meanStepMs = 0.0;
    double meanAudioContext = 0.0;  // encoder positions per decoded window (1500 unless reduced)
    double maxBehindSeconds = 0.0;  // the most audio waiting when a step ended
    int stepsBehind = 0;            // steps that ended with more than a step of audio waiting
};

// Plays `audio` through a session of `engine` (a fresh one per run) at `speed`.
Result<StreamingBenchCase> runStreamingBenchmark(const Engine& engine, const std::string& model, const std::string& audio,
                                                 const StreamingOptions& options, double speed);

nlohmann::json toJson(const StreamingBenchCase& c);
nlohmann::json toJson(const LatencySummary& latency);  // count, median, p90, max
// A markdown table, one row per case.
std::string formatStreamingBenchmark(const std::vector<StreamingBenchCase>& cases);

} // namespace hearsay
