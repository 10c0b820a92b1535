// The consumer half shared by every source fed through a CaptureChannel: drains the ring
// buffer, mixes to mono and resamples to 16 kHz (libsamplerate, state kept across reads),
// keeps the sample clock, the counters and the status. Producers (capture_device.h,
// simulated_live_source.h) only start and stop runs.
#pragma once

#include "core/audio/audio_source.h"
#include "core/audio/capture_channel.h"
#include "core/audio/resampler.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace hearsay {

class RingSource : public AudioSource {
public:
    ~RingSource() override;

    size_t read(std::span<float> out) override;
    WaitResult waitForData(std::chrono::milliseconds timeout, size_t minSamples = 1) override;
    bool atEnd() override;

    SourceStatus status() const override;
    SourceCounters counters() const override;
    InputLevel level() const override;
    std::optional<std::chrono::steady_clock::time_point> timeOfSample(uint64_t n) const override;

protected:
    // quality: of the conversion to 16 kHz (nothing is converted when the producer delivers
    // 16 kHz mono).
    explicit RingSource(Resampler::Quality quality);

    // Consumer thread (from start()): converts what the previous run left in its ring buffer
    // (it stays readable, first), then makes `channel` the live run and marks the source Running.
    Result<void> beginRun(std::shared_ptr<CaptureChannel> channel);
    // Any thread: if the source is Running, moves it to `state` with `message` and wakes any
    // waiter; returns false (and changes nothing) if it was not Running. Call it before ending
    // the run's channel, so that a consumer who sees the end also sees why.
    bool endRun(SourceState state, std::string message);
    // Any thread: replaces the status unconditionally (e.g. a start() that failed).
    void setStatus(SourceState state, std::string message);
    // The wake-up every run's channel notifies (create channels with it).
    const std::shared_ptr<Wakeup>& wakeup() const { return m_wakeup; }

private:
    struct Run {
        std::shared_ptr<CaptureChannel> channel;
        std::unique_ptr<Resampler> resampler;  // channel rate -> 16 kHz, mono
        bool flushed = false;                  // the resampler's tail was taken (after the end)
    };
    // Where a run starts in the 16 kHz stream, for timeOfSample().
    struct Anchor {
        uint64_t firstSample = 0;
        std::shared_ptr<const CaptureChannel> channel;  // while it is the live run
        int64_t startNs = 0;                            // resolved when the run is retired; 0: never started
        double pace = 1.0;
    };

    // Consumer thread: converts up to about `wanted` samples' worth of the run's ring buffer
    // into m_pending (or, once the run has ended and its ring is empty, the resampler's tail).
    // Returns false when nothing was converted and nothing more can be right now.
    bool pump(size_t wanted);
    size_t pendingCount() const { return m_pending.size() - m_pendingAt; }
    bool runOpen() const;  // the live run may still deliver samples (producing, or its tail not taken)

    const Resampler::Quality m_quality;
    const std::shared_ptr<Wakeup> m_wakeup = std::make_shared<Wakeup>();

    // Consumer thread only.
    std::unique_ptr<Run> m_run;
    std::vector<float> m_pending;  // converted 16 kHz samples not yet returned; [m_pendingAt, size)
    size_t m_pendingAt = 0;
    std::vector<float> m_interleaved;  // [frames][channels] scratch
    std::vector<float> m_mono;         // [frames] scratch
    uint64_t m_converted = 0;          // 16 kHz samples converted so far, all runs

    // Shared with any thread, under m_mutex.
    mutable std::mutex m_mutex;
    SourceStatus m_status;
    std::shared_ptr<const CaptureChannel> m_live;  // the current or latest run's channel
    std::vector<Anchor> m_anchors;
    SourceCounters m_retired;  // totals of the runs before m_live
    std::atomic<uint64_t> m_read{0};
};

} // namespace hearsay
