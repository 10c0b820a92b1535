// The batch log-mel frontend: one 30 s window, as transformers' WhisperFeatureExtractor
// (numpy path) computes it. The frames are split over a few threads.
#include "core/frontend/log_mel.h"

#include "core/frontend/mel_frame.h"

#include <algorithm>
#include <thread>

namespace hearsay {
namespace {

// Threads for one window: the work is ~3000 small FFTs, so a few threads suffice.
int windowThreads() {
    const unsigned hw = std::thread::hardware_concurrency();
    return int(std::clamp(hw, 1u, 4u));
}

} // namespace

LogMel logMelSpectrogram(const float* samples, size_t count, int nMels) {
    if (nMels <= 0) return LogMel{};
    const size_t length = std::min(count, size_t(kChunkSamples));
    std::vector<float> logFrames(size_t(kChunkFrames) * size_t(nMels));  // [3000][n_mels]

    // Frames past the audio are silence and cost no FFT, so split only the frames that see audio.
    const int busyFrames = std::min(kChunkFrames, int((length + kFftSize) / kHopLength) + 1);
    const int threads = std::min(windowThreads(), std::max(1, busyFrames / 250));
    auto work = [&](int tBegin, int tEnd) {
        MelFrameComputer computer(nMels);
        segmentLogMelFrames(computer, samples, length, tBegin, tEnd, nullptr,
                            logFrames.data() + size_t(tBegin) * size_t(nMels));
    };
    std::vector<std::thread> workers;
    int begin = 0;
    for (int i = 0; i < threads; ++i) {
        const int end = (i == threads - 1) ? kChunkFrames : busyFrames * (i + 1) / threads;
        if (i == threads - 1) {
            work(begin, end);
        } else {
            workers.emplace_back(work, begin, end);
        }
        begin = end;
    }
    for (auto& w : workers) w.join();
    return normaliseLogMel(logFrames, nMels, kChunkFrames);
}

} // namespace hearsay
