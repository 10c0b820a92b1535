// A recording read front to back in blocks of 16 kHz mono samples, and restartable: long-form
// transcription reads it twice (the log-mel's maximum over the whole recording, then the
// windows), so a long file never has to be held in memory.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <algorithm>
#include <span>

namespace hearsay {

class SampleReader {
public:
    virtual ~SampleReader() = default;
    // Up to out.size() next samples into out; 0 at the end of the recording.
    virtual Result<size_t> read(std::span<float> out) = 0;
    // Back to the first sample.
    virtual Result<void> rewind() = 0;
};

// Samples already in memory.
class SpanSampleReader final : public SampleReader {
public:
    explicit SpanSampleReader(std::span<const float> samples) : m_samples(samples) {}
    Result<size_t> read(std::span<float> out) override {
        const size_t n = std::min(out.size(), m_samples.size() - m_next);
        std::copy(m_samples.begin() + std::ptrdiff_t(m_next), m_samples.begin() + std::ptrdiff_t(m_next + n), out.begin());
        m_next += n;
        return n;
    }
    Result<void> rewind() override {
        m_next = 0;
        return {};
    }

private:
    std::span<const float> m_samples;
    size_t m_next = 0;
};

} // namespace hearsay
