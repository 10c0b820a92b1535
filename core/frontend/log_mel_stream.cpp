// The incremental log-mel frontend: each frame is computed once, when its last sample arrives (or
// at finish(), with zeros after the last sample); windows are sliced from the stored frames.
#include "core/frontend/log_mel.h"

#include "core/frontend/mel_frame.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
    bool ended = false;
    float maxValue = -std::numeric_limits<float>::infinity();

    // The 400 samples of frame t: reflect padding before sample 0 (as the reference's centred
    // STFT), zeros after the last sample appended.
    void frameSamples(size_t t, float* out) const {
        const long start = long(t * kHopLength) - kFftSize / 2;
        for (int j = 0; j < kFftSize; ++j) {
            long i = start + j;
            if (i < 0) i = -i;
            out[j] = size_t(i) < totalSamples ? samples[size_t(i) - sampleOffset] : 0.0f;
        }
    }

    void store(size_t t) {
        float frame[kFftSize];
        frameSamples(t, frame);
        const size_t at = frames.size();
        frames.resize(at + size_t(nMels));
        computer.compute(frame, frames.data() + at);
        maxValue = std::max(maxValue, *std::max_element(frames.begin() + long(at), frames.end()));
        framesDone = t + 1;
    }

    // Computes every frame whose 400 samples have all arrived. The stream's first frames reflect
    // at sample 0, so frame 0 also needs sample 200.
    void computeReadyFrames() {
        while (framesDone * kHopLength + kFftSize / 2 <= totalSamples &&
               (framesDone > 0 || totalSamples > size_t(kFftSize / 2))) {
            store(framesDone);
        }
    }

    // Frame t, stored or (not yet complete) computed as if the recording ended now.
    const float* frame(size_t t, MelFrameComputer& scratch, std::vector<float>& buffer) const {
        if (t < framesDone) return frames.data() + (t - frameOffset) * size_t(nMels);
        float samplesOfFrame[kFftSize];
        frameSamples(t, samplesOfFrame);
        buffer.resize(size_t(nMels));
        scratch.compute(samplesOfFrame, buffer.data());
        return buffer.data();
    }
};

LogMelStream::LogMelStream(int nMels) : m_impl(std::make_unique<Impl>(std::max(nMels, 1))) {}

LogMelStream::~LogMelStream() = default;

void LogMelStream::append(const float* samples, size_t count) {
    if (count == 0 || m_impl->ended) return;
    m_impl->samples.insert(m_impl->samples.end(), samples, samples + count);
    m_impl->totalSamples += count;
    m_impl->computeReadyFrames();
}

void LogMelStream::finish() {
    Impl& d = *m_impl;
    if (d.ended) return;
    d.ended = true;
    for (size_t t = d.framesDone; t <= d.totalSamples / kHopLength; ++t) d.store(t);
}

void LogMelStream::reset() {
    Impl& d = *m_impl;
    d.samples.clear();
    d.frames.clear();
    d.sampleOffset = d.totalSamples = d.frameOffset = d.framesDone = d.discardedBefore = 0;
    d.ended = false;
    d.maxValue = -std::numeric_limits<float>::infinity();
}

size_t LogMelStream::framesReady() const { return m_impl->framesDone; }

size_t LogMelStream::samplesAppended() const { return m_impl->totalSamples; }

bool LogMelStream::finished() const { return m_impl->ended; }

float LogMelStream::maxLog10() const { return m_impl->maxValue; }

LogMel LogMelStream::window(size_t firstFrame, size_t frameCount, const MelWindowOptions& options) const {
    const Impl& d = *m_impl;
    const size_t segStart = firstFrame * kHopLength;
    LogMel empty;
    empty.nMels = d.nMels;
    if (firstFrame < d.discardedBefore || segStart > d.totalSamples) return empty;
    frameCount = std::min(frameCount, size_t(kChunkFrames));
    MelFrameComputer computer(d.nMels);  // for frames not yet complete; keeps window() const

    if (options.padding == MelPadding::Silence) {
        const size_t length = std::min(frameCount * kHopLength, d.totalSamples - segStart);
        const float* seg = d.samples.data() + (segStart - d.sampleOffset);
        // Frames inside the segment are the stream's; the segment's edge frames are its own.
        auto stored = [&](int t) -> const float* {
            const size_t frame = firstFrame + size_t(t);
            if (frame >= d.framesDone || frame < d.frameOffset) return nullptr;
            return d.frames.data() + (frame - d.frameOffset) * size_t(d.nMels);
        };
        std::vector<float> logFrames(size_t(kChunkFrames) * size_t(d.nMels));
        segmentLogMelFrames(computer, seg, length, 0, kChunkFrames, stored, logFrames.data());
        return normaliseLogMel(logFrames, d.nMels, kChunkFrames);
    }

    if (frameCount > 0 && firstFrame + frameCount - 1 > d.totalSamples / kHopLength) return empty;
    std::vector<float> logFrames(frameCount * size_t(d.nMels));  // [count][n_mels]
    std::vector<float> scratch;
    for (size_t t = 0; t < frameCount; ++t) {
        const float* f = d.frame(firstFrame + t, computer, scratch);
        std::copy(f, f + d.nMels, logFrames.data() + t * size_t(d.nMels));
    }
    return normaliseWindowFrames(logFrames, d.nMels, int(frameCount), options.clampMax);
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
