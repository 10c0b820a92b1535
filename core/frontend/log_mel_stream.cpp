// The incremental log-mel frontend: each frame is computed once, when its last sample arrives;
// window() reuses them and recomputes only the frames at the edges of the requested segment.
#include "core/frontend/log_mel.h"

#include "core/frontend/mel_frame.h"

#include <algorithm>

namespace hearsay {

struct LogMelStream::Impl {
    explicit Impl(int mels) : nMels(mels), computer(mels) {}

    int nMels;
    MelFrameComputer computer;
    std::vector<float> samples;   // audio from absolute sample sampleOffset on
    size_t sampleOffset = 0;
    size_t totalSamples = 0;      // appended since reset
    std::vector<float> frames;    // [frame][n_mels] log10 mel, absolute frames from frameOffset on
    size_t frameOffset = 0;
    size_t framesDone = 0;        // absolute frames computed
    size_t discardedBefore = 0;   // windows must start at or after this frame

    // Computes every frame whose 400 samples have all arrived. The stream's first two frames
    // use reflect padding, as a segment that starts at sample 0 does.
    void computeReadyFrames() {
        float frame[kFftSize];
        // Frame t needs samples [t*160 - 200, t*160 + 200); frame 0 also sample 200 (reflected).
        while (framesDone * kHopLength + kFftSize / 2 <= totalSamples &&
               (framesDone > 0 || totalSamples > size_t(kFftSize / 2))) {
            const long start = long(framesDone * kHopLength) - kFftSize / 2;
            for (int j = 0; j < kFftSize; ++j) {
                long i = start + j;
                if (i < 0) i = -i;
                frame[j] = samples[size_t(i) - sampleOffset];
            }
            const size_t at = frames.size();
            frames.resize(at + size_t(nMels));
            computer.compute(frame, frames.data() + at);
            ++framesDone;
        }
    }
};

LogMelStream::LogMelStream(int nMels) : m_impl(std::make_unique<Impl>(std::max(nMels, 1))) {}

LogMelStream::~LogMelStream() = default;

void LogMelStream::append(const float* samples, size_t count) {
    if (count == 0) return;
    m_impl->samples.insert(m_impl->samples.end(), samples, samples + count);
    m_impl->totalSamples += count;
    m_impl->computeReadyFrames();
}

void LogMelStream::reset() {
    Impl& d = *m_impl;
    d.samples.clear();
    d.frames.clear();
    d.sampleOffset = d.totalSamples = d.frameOffset = d.framesDone = d.discardedBefore = 0;
}

size_t LogMelStream::framesReady() const { return m_impl->framesDone; }

size_t LogMelStream::samplesAppended() const { return m_impl->totalSamples; }

LogMel LogMelStream::window(size_t firstFrame, size_t frameCount) const {
    const Impl& d = *m_impl;
    const size_t segStart = firstFrame * kHopLength;
    if (firstFrame < d.discardedBefore || segStart > d.totalSamples) {
        LogMel empty;
        empty.nMels = d.nMels;
        return empty;
    }
    frameCount = std::min(frameCount, size_t(kChunkFrames));
    const size_t length = std::min(frameCount * kHopLength, d.totalSamples - segStart);
    const float* seg = d.samples.data() + (segStart - d.sampleOffset);

    auto stored = [&](int t) -> const float* {
        const size_t frame = firstFrame + size_t(t);
        if (frame >= d.framesDone || frame < d.frameOffset) return nullptr;
        return d.frames.data() + (frame - d.frameOffset) * size_t(d.nMels);
    };
    MelFrameComputer computer(d.nMels);  // for the edge frames; keeps window() const
    std::vector<float> logFrames(size_t(kChunkFrames) * size_t(d.nMels));
    segmentLogMelFrames(computer, seg, length, 0, kChunkFrames, stored, logFrames.data());
    return normaliseLogMel(logFrames, d.nMels, kChunkFrames);
}

void LogMelStream::discardBefore(size_t firstFrame) {
    Impl& d = *m_impl;
    firstFrame = std::min(firstFrame, d.framesDone);
    if (firstFrame <= d.discardedBefore) return;
    d.discardedBefore = firstFrame;
    // Frames still to be computed need samples from 200 before their centre.
    const size_t keepSample = std::min(firstFrame * kHopLength,
                                       d.framesDone * kHopLength - std::min<size_t>(d.framesDone * kHopLength, kFftSize / 2));
    if (keepSample > d.sampleOffset) {
        d.samples.erase(d.samples.begin(), d.samples.begin() + long(keepSample - d.sampleOffset));
        d.sampleOffset = keepSample;
    }
    if (firstFrame > d.frameOffset) {
        d.frames.erase(d.frames.begin(), d.frames.begin() + long((firstFrame - d.frameOffset) * size_t(d.nMels)));
        d.frameOffset = firstFrame;
    }
}

} // namespace hearsay
