// What a live transcription reports, as plain values (the GUI turns them into queued signals at
// one boundary; the CLI prints them): tentative and committed text with times and latencies, the
// figures of each step, and a summary at the end. Times in seconds of stream audio (sample / 16000)
// unless named otherwise.
#pragma once

#include "core/nn/inference_session.h"
#include "core/transcript/transcript.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hearsay {

// The text not yet committed, replaced by every step (empty when nothing is tentative).
struct TentativeText {
    std::string text;
    std::vector<int> tokens;     // text tokens
    double start = 0.0;          // of its first word, estimated from the window's timestamps
    double end = 0.0;
};

// Text that will not change any more: in order, each piece once.
struct CommittedText {
    std::string text;            // as decoded (a leading space where a new word starts)
    std::vector<int> tokens;     // text tokens
    double start = 0.0;          // when its audio starts and ends (its words' aligned times; without
    double end = 0.0;            // word timings, the window's timestamps shared out over the characters)
    bool endOfUtterance = false; // committed because the speaker paused (or Stop), not by agreement
    std::vector<Word> words;     // with word timings: its words, times in seconds of stream audio
    // Per word of `text`: latency from the end of the word's audio (when it was captured) to when
    // it was first shown (tentative) and to now (committed), wall-clock seconds. Empty when the
    // source has no clock (an unpaced file).
    std::vector<double> tentativeLatency;
    std::vector<double> commitLatency;
    std::vector<double> latencyWordEnds;  // the end of each of those words, seconds of stream audio
};

// One step of the session.
struct StreamingStep {
    uint64_t index = 0;
    double streamSeconds = 0.0;    // audio that had arrived when the step ran (its window's end)
    double windowSeconds = 0.0;    // audio in the decoded window (0: not decoded, silence)
    bool decoded = false;
    int audioContext = 0;          // encoder positions of the decoded window (1500: the full 30 s)
    double encoderMs = 0.0;        // encoder + cross K/V projection
    double decodeMs = 0.0;         // all decoder calls of the step
    int tokens = 0;                // tokens sampled
    double msPerToken = 0.0;
    double tokensPerSecond = 0.0;  // sampled tokens per second of decoding time
    double stepMs = 0.0;           // wall time of the whole step
    double realTimeFactor = 0.0;   // step wall time / audio advanced since the previous step
    double behindSeconds = 0.0;    // audio that arrived while the step ran (0 on a machine that keeps up)
    KvCacheStats cache;            // the session's caches after the step
    bool selfCache = true, crossCache = true;  // the switches in effect during the step
};

struct LatencySummary {
    int count = 0;
    double median = 0.0;
    double p90 = 0.0;
    double max = 0.0;
};

struct StreamingSummary {
    std::string text;              // everything committed
    double audioSeconds = 0.0;     // read from the source
    uint64_t samplesRead = 0;      // from the source
    uint64_t samplesProcessed = 0; // taken into windows or passed over as silence (== samplesRead after Stop)
    uint64_t droppedSamples = 0;   // the source's overflow losses
    uint64_t overflowEvents = 0;
    int steps = 0, decodedSteps = 0, utterances = 0;
    double realTimeFactor = 0.0;   // total step time / audio
    LatencySummary tentativeLatency, commitLatency;  // per word, wall-clock seconds
    // Per utterance: from the end of its last word's audio (when it was captured) to when that
    // word was committed, wall-clock seconds: how long a speaker waits for the final text.
    LatencySummary finalLatency;
    // Times the session's guard against committing audio twice had to act: a decode that would
    // have ended before audio whose text is committed (its end raised), a new window that would
    // have started inside it (its start moved), or text dropped because its audio was committed.
    // 0 unless the policy has a fault: the guard keeps the committed text in order all the same.
    int recommitsPrevented = 0;
    std::string language;
    std::string error;             // the source or the engine failed (what was committed is kept)
};

} // namespace hearsay
