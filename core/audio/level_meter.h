// The input level for a level meter (RMS and peak of the latest audio), measured by the
// producer as the audio arrives and read from any thread (the GUI polls it).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace hearsay {

struct InputLevel {
    float rms = 0.0f;   // of the latest window (about 50 ms) of the mono mix, linear, full scale 1
    float peak = 0.0f;  // largest |sample| in that window
    uint64_t windows = 0;  // windows measured so far (0: nothing heard yet)

    // dBFS, floored at -100 for silence.
    static float toDb(float linear) { return linear > 1e-5f ? 20.0f * std::log10(linear) : -100.0f; }
};

// add(): the producer thread only (real-time safe: arithmetic and three relaxed stores).
// latest(): any thread. rms and peak are published separately, so a reader may pair a window's
// rms with the next window's peak: harmless for a meter.
class LevelMeter {
public:
    // windowFrames: frames per published window (e.g. rate / 20 for 50 ms).
    void reset(size_t windowFrames) noexcept {
        m_windowFrames = std::max<size_t>(windowFrames, 1);
        m_sumSquares = 0.0;
        m_peakInWindow = 0.0f;
        m_framesInWindow = 0;
        m_rms.store(0.0f, std::memory_order_relaxed);
        m_peak.store(0.0f, std::memory_order_relaxed);
        m_windows.store(0, std::memory_order_relaxed);
    }

    // interleaved: [frames][channels]; the level is the one of the channel average.
    void add(const float* interleaved, size_t frames, int channels) noexcept {
        const float scale = 1.0f / float(channels);
        for (size_t i = 0; i < frames; ++i) {
            float mono = 0.0f;
            for (int c = 0; c < channels; ++c) mono += interleaved[i * size_t(channels) + size_t(c)];
            mono *= scale;
            m_sumSquares += double(mono) * double(mono);
            m_peakInWindow = std::max(m_peakInWindow, std::abs(mono));
            if (++m_framesInWindow == m_windowFrames) {
                m_rms.store(float(std::sqrt(m_sumSquares / double(m_windowFrames))), std::memory_order_relaxed);
                m_peak.store(m_peakInWindow, std::memory_order_relaxed);
                m_windows.store(m_windows.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
                m_sumSquares = 0.0;
                m_peakInWindow = 0.0f;
                m_framesInWindow = 0;
            }
        }
    }

    InputLevel latest() const noexcept {
        return {m_rms.load(std::memory_order_relaxed), m_peak.load(std::memory_order_relaxed),
                m_windows.load(std::memory_order_relaxed)};
    }

private:
    // Producer-private accumulators.
    size_t m_windowFrames = 800;
    double m_sumSquares = 0.0;
    float m_peakInWindow = 0.0f;
    size_t m_framesInWindow = 0;
    // Published values.
    std::atomic<float> m_rms{0.0f};
    std::atomic<float> m_peak{0.0f};
    std::atomic<uint64_t> m_windows{0};
};

} // namespace hearsay
