// Segment splitting and seek advance of one decoded window (whisper/transcribe.py).
#include "core/decoding/window_segmenter.h"

namespace hearsay {

WindowSplit splitWindow(const std::vector<int>& tokens, int timestampBegin, double timeOffset, int segmentFrames,
                        double timePrecision, int inputStride) {
    WindowSplit split;
    const size_t n = tokens.size();
    auto isTimestamp = [&](size_t i) { return tokens[i] >= timestampBegin; };
    const bool singleTimestampEnding = n >= 2 && !isTimestamp(n - 2) && isTimestamp(n - 1);
    split.singleTimestampEnding = singleTimestampEnding;

    std::vector<size_t> cuts;  // positions just after each consecutive timestamp pair's first token
    for (size_t i = 0; i + 1 < n; ++i)
        if (isTimestamp(i) && isTimestamp(i + 1)) cuts.push_back(i + 1);

    if (!cuts.empty()) {
        if (singleTimestampEnding) cuts.push_back(n);
        size_t last = 0;
        for (size_t cut : cuts) {
            WindowSlice slice;
            slice.tokens.assign(tokens.begin() + std::ptrdiff_t(last), tokens.begin() + std::ptrdiff_t(cut));
            slice.start = timeOffset + double(slice.tokens.front() - timestampBegin) * timePrecision;
            slice.end = timeOffset + double(slice.tokens.back() - timestampBegin) * timePrecision;
            split.slices.push_back(std::move(slice));
            last = cut;
        }
        if (singleTimestampEnding)
            split.seekAdvance = segmentFrames;  // no speech after the last timestamp
        else
            split.seekAdvance = (tokens[last - 1] - timestampBegin) * inputStride;  // re-decode the unfinished tail
    } else {
        double duration = double(segmentFrames) * 0.01;  // 160 samples per frame at 16 kHz
        int lastTimestamp = -1;
        for (int t : tokens)
            if (t >= timestampBegin) lastTimestamp = t;
        if (lastTimestamp >= 0 && lastTimestamp != timestampBegin)
            duration = double(lastTimestamp - timestampBegin) * timePrecision;
        split.slices.push_back({timeOffset, timeOffset + duration, tokens});
        split.seekAdvance = segmentFrames;
    }
    if (split.seekAdvance <= 0) split.seekAdvance = segmentFrames;  // never stall on a degenerate window
    return split;
}

} // namespace hearsay
