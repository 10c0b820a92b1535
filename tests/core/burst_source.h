// A capture source for tests that delivers a clip in scripted bursts: each waitForData() of the
// consumer that finds too little audio releases the next arrival of the script (a device block,
// or seconds at once, as a sound server gives them at its start or while a step runs late).
// Deterministic: what the consumer sees depends on its own calls only, never on the clock. The
// sample clock (timeOfSample) is real-time pace from start(), for the session's latency figures.
#pragma once

#include "core/audio/audio_source.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hearsay::test {

class BurstSource final : public AudioSource {
public:
    // arrivals: samples released by each tick, in order; the clip's rest comes in the last tick.
    BurstSource(std::vector<float> samples, std::vector<size_t> arrivals)
        : m_samples(std::move(samples)), m_arrivals(std::move(arrivals)) {}

    Result<void> start() override {
        m_state = m_delivered < m_samples.size() ? SourceState::Running : SourceState::Finished;
        m_startedAt = std::chrono::steady_clock::now();
        return {};
    }
    void stop() override {
        if (m_state == SourceState::Running) m_state = SourceState::Finished;
    }

    size_t read(std::span<float> out) override {
        const size_t n = std::min(out.size(), m_delivered - m_read);
        if (n > 0) std::memcpy(out.data(), m_samples.data() + m_read, n * sizeof(float));
        m_read += n;
        return n;
    }

    WaitResult waitForData(std::chrono::milliseconds, size_t minSamples = 1) override {
        if (m_delivered - m_read >= std::max<size_t>(1, minSamples)) return WaitResult::Ready;
        if (m_state == SourceState::Running) tick();
        if (m_delivered - m_read >= std::max<size_t>(1, minSamples)) return WaitResult::Ready;
        if (m_state != SourceState::Running) return m_delivered > m_read ? WaitResult::Ready : WaitResult::Ended;
        return WaitResult::Timeout;
    }

    bool atEnd() override { return m_state != SourceState::Running && m_read == m_delivered; }

    SourceStatus status() const override { return SourceStatus{m_state, m_state == SourceState::Finished ? "end of script" : ""}; }
    SourceCounters counters() const override {
        SourceCounters c;
        c.capturedSamples = m_delivered;
        c.readSamples = m_read;
        return c;
    }
    InputLevel level() const override { return {}; }
    std::optional<std::chrono::steady_clock::time_point> timeOfSample(uint64_t n) const override {
        if (m_state == SourceState::Idle) return std::nullopt;
        return m_startedAt + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(double(n) / double(kSampleRate)));
    }
    std::string description() const override { return "scripted bursts"; }

private:
    void tick() {
        const size_t size = m_next < m_arrivals.size() ? m_arrivals[m_next++] : m_samples.size() - m_delivered;
        m_delivered = std::min(m_samples.size(), m_delivered + size);
        if (m_delivered == m_samples.size()) m_state = SourceState::Finished;
    }

    std::vector<float> m_samples;
    std::vector<size_t> m_arrivals;
    size_t m_next = 0;
    size_t m_delivered = 0;
    size_t m_read = 0;
    SourceState m_state = SourceState::Idle;
    std::chrono::steady_clock::time_point m_startedAt;
};

} // namespace hearsay::test
