// The parameters of voice activity detection: when a chunk counts as speech and how chunks become
// segments. One struct shared by the offline segmenter, the streaming detector and the settings.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace hearsay {

inline constexpr int kVadSampleRate = 16000;   // Hz; the only rate the detector takes
inline constexpr int kVadChunkSamples = 512;   // one decision per 32 ms chunk
inline constexpr int kVadContextSamples = 64;  // samples of the previous chunk the network also sees

// Defaults are Hearsay's choices for live dictation; the silero-vad package's own defaults are
// given where they differ (its get_speech_timestamps and VADIterator).
struct VadOptions {
    double threshold = 0.5;                     // a chunk with probability >= this is speech
    std::optional<double> negativeThreshold;    // inside speech, a chunk below this is silence; unset: max(threshold - 0.15, 0.01)
    int minSilenceMs = 500;                     // silence that ends a segment (package: 100); shorter pauses stay inside it
    int speechPadMs = 100;                      // widening of each segment on both sides (package: 30); neighbours closer than twice this split the gap
    int minSpeechMs = 250;                      // segments not longer than this (before padding) are dropped
    double maxSpeechSeconds = std::numeric_limits<double>::infinity(); // longer segments are cut (package's rule, below); infinity: never
    int minSilenceAtMaxSpeechMs = 98;           // only pauses longer than this are candidate cut points of an over-long segment
    bool cutAtLongestSilence = true;            // true: cut an over-long segment at its longest pause; false: the package's legacy rule (last pause)

    // The negative threshold in effect.
    double effectiveNegativeThreshold() const;
    // Thresholds in [0, 1], durations >= 0, max speech long enough to hold a chunk and the padding.
    Result<void> validate() const;
};

} // namespace hearsay
