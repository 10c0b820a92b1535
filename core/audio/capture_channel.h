// What one run of a producer (a PortAudio stream, a file feeder) shares with the consumer: the
// ring buffer at the producer's own rate and channel count, the counters, the level meter and
// the first sample's capture time. Shared ownership (std::shared_ptr), because a stalled
// PortAudio stream may still call back after its source has given up on it or been destroyed.
#pragma once

#include "core/audio/level_meter.h"
#include "core/audio/ring_buffer.h"
#include "core/audio/wakeup.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace hearsay {

class CaptureChannel {
public:
    using Clock = std::chrono::steady_clock;

    // rate: Hz of the samples pushed; channels: interleaved channels; ringFrames: capacity in
    // frames (rounded up so that the ring holds a power of two of samples); pace: how many
    // seconds of audio arrive per second (1 for a device, the speed of a simulated source,
    // 0 when unpaced); wakeup: notified on every push and at the end.
    CaptureChannel(int rate, int channels, size_t ringFrames, double pace, std::shared_ptr<Wakeup> wakeup)
        : m_rate(rate),
          m_channels(channels),
          m_pace(pace),
          m_ring(ringFrames * size_t(channels)),
          m_wakeup(std::move(wakeup)) {
        m_level.reset(size_t(rate / 20));
    }

    int rate() const noexcept { return m_rate; }
    int channels() const noexcept { return m_channels; }
    double pace() const noexcept { return m_pace; }
    size_t capacityFrames() const noexcept { return m_ring.capacity() / size_t(m_channels); }

    // --- producer thread (real-time safe) ---
    // "The first sample was captured at `firstSample` at the latest": the earliest bound given
    // so far is kept (a device refines it over its first callbacks, see capture_device.cpp).
    void markStart(Clock::time_point firstSample) noexcept {
        const int64_t ns = toNs(firstSample);
        const int64_t current = m_startNs.load(std::memory_order_relaxed);
        if (current == 0 || ns < current) m_startNs.store(ns, std::memory_order_release);
    }
    // interleaved: [frames][channels]. Frames that do not fit are counted as dropped.
    void push(const float* interleaved, size_t frames) noexcept {
        m_level.add(interleaved, frames, m_channels);
        m_ring.write(interleaved, frames * size_t(m_channels), size_t(m_channels));
        m_pushedFrames.store(m_pushedFrames.load(std::memory_order_relaxed) + frames, std::memory_order_release);
        m_wakeup->notify();
    }
    void countDeviceOverrun() noexcept {
        m_deviceOverruns.store(m_deviceOverruns.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    size_t freeFrames() const noexcept { return m_ring.writeAvailable() / size_t(m_channels); }
    // The producer is done (finished, stopped, lost): nothing more will be pushed. Any thread.
    void end() noexcept {
        m_ended.store(true, std::memory_order_release);
        m_wakeup->notify();
    }

    // --- consumer thread ---
    // Copies up to maxFrames frames into out ([frames][channels]); returns the frames.
    size_t pop(float* out, size_t maxFrames) noexcept {
        return m_ring.read(out, maxFrames * size_t(m_channels)) / size_t(m_channels);
    }
    size_t availableFrames() const noexcept { return m_ring.readAvailable() / size_t(m_channels); }

    // --- any thread ---
    // True once end() was called; read it before availableFrames() to know that nothing more
    // will come after what is available.
    bool ended() const noexcept { return m_ended.load(std::memory_order_acquire); }
    uint64_t pushedFrames() const noexcept { return m_pushedFrames.load(std::memory_order_acquire); }
    uint64_t droppedFrames() const noexcept { return m_ring.droppedSamples() / uint64_t(m_channels); }
    uint64_t overflowEvents() const noexcept { return m_ring.overflowEvents(); }
    uint64_t deviceOverruns() const noexcept { return m_deviceOverruns.load(std::memory_order_relaxed); }
    InputLevel level() const noexcept { return m_level.latest(); }
    bool started() const noexcept { return m_startNs.load(std::memory_order_acquire) != 0; }
    Clock::time_point startTime() const noexcept {
        return Clock::time_point(std::chrono::nanoseconds(m_startNs.load(std::memory_order_acquire)));
    }
    Wakeup& wakeup() const noexcept { return *m_wakeup; }

private:
    static int64_t toNs(Clock::time_point t) noexcept {
        const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
        return ns == 0 ? 1 : ns;  // 0 means "not yet"
    }

    const int m_rate;
    const int m_channels;
    const double m_pace;
    RingBuffer m_ring;  // [frames][channels] at m_rate
    LevelMeter m_level;
    const std::shared_ptr<Wakeup> m_wakeup;
    std::atomic<uint64_t> m_pushedFrames{0};   // producer only
    std::atomic<uint64_t> m_deviceOverruns{0}; // producer only
    std::atomic<int64_t> m_startNs{0};         // producer only: steady clock ns of sample 0; 0: none yet
    std::atomic<bool> m_ended{false};
};

} // namespace hearsay
