// Turns one window's sampled tokens into timed segments and says how far the window advances
// (seek), as the reference's long-form transcribe(): segments close at consecutive timestamp
// pairs; an unfinished last segment is dropped and re-decoded from its start in the next window.
#pragma once

#include <cstddef>
#include <vector>

namespace hearsay {

struct WindowSlice {
    double start = 0.0;       // seconds from the start of the audio
    double end = 0.0;
    std::vector<int> tokens;  // the slice's tokens, its timestamps included
};

struct WindowSplit {
    std::vector<WindowSlice> slices;
    int seekAdvance = 0;      // mel frames to advance (always > 0)
    bool singleTimestampEnding = false;  // the tokens end with a lone timestamp (no speech after it)
};

// tokens: the window's sampled tokens (EOT excluded); timeOffset: the window's start in seconds;
// segmentFrames: mel frames of real audio in the window (≤ 3000). One timestamp step is
// timePrecision seconds and inputStride mel frames (0.02 s and 2 for Whisper).
WindowSplit splitWindow(const std::vector<int>& tokens, int timestampBegin, double timeOffset, int segmentFrames,
                        double timePrecision = 0.02, int inputStride = 2);

} // namespace hearsay
