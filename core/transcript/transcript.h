// The result of transcribing one audio stream: timed segments with their decoding details, the
// language, and the run's statistics (encoder time, decode time per token, cache bytes, RTF).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace hearsay {

// One word of a segment with its timing (word timestamps; faster-whisper's Word).
struct Word {
    std::string word;             // as decoded, leading space kept, punctuation merged
    double start = 0.0;           // seconds
    double end = 0.0;
    double probability = 0.0;     // mean probability of its tokens
};

struct Segment {
    int id = 0;
    int seek = 0;                 // mel frame where the window that produced it started
    double start = 0.0;           // seconds
    double end = 0.0;
    std::string text;             // as decoded (leading space kept, like the reference)
    std::vector<int> tokens;      // token ids, timestamps included
    float temperature = 0.0f;     // temperature of the accepted decode
    double avgLogprob = 0.0;
    double compressionRatio = 0.0;
    double noSpeechProb = 0.0;
    std::vector<Word> words;      // with word timestamps on; empty otherwise
};

struct RunStatistics {
    double audioSeconds = 0.0;
    double wallSeconds = 0.0;      // whole transcription, log-mel included
    double encoderMs = 0.0;        // sum over windows
    double decodeMs = 0.0;         // sum over decoder calls
    int decodeCalls = 0;
    int sampledTokens = 0;         // decoder steps of the accepted decodes
    double decodeMsPerToken = 0.0; // decodeMs / decodeCalls
    int windows = 0;               // encoder runs
    int fallbacks = 0;             // decodes rejected by the fallback thresholds
    int silentWindows = 0;         // windows skipped as silence
    int repetitionLoopsCut = 0;    // windows whose trailing loop was cut
    double wordTimestampsMs = 0.0; // word timestamps: the forced passes and the alignment, all windows
    int alignedWindows = 0;        // windows whose words were aligned
    size_t selfCacheBytes = 0;     // allocated, at the end of the run
    size_t crossCacheBytes = 0;
    bool selfCache = true;
    bool crossCache = true;
    double realTimeFactor() const { return audioSeconds > 0.0 ? wallSeconds / audioSeconds : 0.0; }
};

struct Transcript {
    std::string source;                          // file name, for reports
    std::string language;                        // code
    std::vector<std::pair<std::string, float>> languageProbabilities;  // when detected (best first)
    std::vector<Segment> segments;
    std::string text;                            // all text tokens decoded
    RunStatistics statistics;
};

} // namespace hearsay
