// An AudioSource that keeps what is read from another: the dictation's audio, sample for sample
// as the streaming session heard it (its committed words' times are seconds of these samples),
// so that the GUI can play it back. Up to a limit, after which it only passes samples through.
#pragma once

#include "core/audio/audio_source.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace hearsay {

class RecordingSource final : public AudioSource {
public:
    // `inner` must outlive this. maxSeconds: how much is kept at most (the first maxSeconds).
    RecordingSource(AudioSource& inner, double maxSeconds)
        : m_inner(inner), m_maxSamples(size_t(std::max(0.0, maxSeconds) * kSampleRate)),
          m_recorded(std::make_shared<std::vector<float>>()) {}

    Result<void> start() override { return m_inner.start(); }
    void stop() override { m_inner.stop(); }
    // The consumer's thread: what it reads is appended to the recording.
    size_t read(std::span<float> out) override {
        const size_t got = m_inner.read(out);
        const size_t keep = std::min(got, m_maxSamples - std::min(m_maxSamples, m_recorded->size()));
        m_recorded->insert(m_recorded->end(), out.begin(), out.begin() + std::ptrdiff_t(keep));
        m_truncated = m_truncated || keep < got;
        return got;
    }
    WaitResult waitForData(std::chrono::milliseconds timeout, size_t minSamples = 1) override {
        return m_inner.waitForData(timeout, minSamples);
    }
    bool atEnd() override { return m_inner.atEnd(); }
    SourceStatus status() const override { return m_inner.status(); }
    SourceCounters counters() const override { return m_inner.counters(); }
    InputLevel level() const override { return m_inner.level(); }
    std::optional<std::chrono::steady_clock::time_point> timeOfSample(uint64_t n) const override {
        return m_inner.timeOfSample(n);
    }
    std::string description() const override { return m_inner.description(); }

    // What was read, from sample 0 (the consumer's thread, or after the consumer is done).
    std::shared_ptr<const std::vector<float>> recorded() const { return m_recorded; }
    // More was read than maxSeconds: the rest was not kept.
    bool truncated() const { return m_truncated; }

private:
    AudioSource& m_inner;
    const size_t m_maxSamples;
    std::shared_ptr<std::vector<float>> m_recorded;
    bool m_truncated = false;
};

} // namespace hearsay
