// libsamplerate's streaming interface (src_process) behind Resampler (see resampler.h).
#include "core/audio/resampler.h"

#include <samplerate.h>

#include <algorithm>
#include <string>
#include <utility>

namespace hearsay {
namespace {

int converterType(Resampler::Quality quality) {
    switch (quality) {
    case Resampler::Quality::Best: return SRC_SINC_BEST_QUALITY;
    case Resampler::Quality::Medium: return SRC_SINC_MEDIUM_QUALITY;
    case Resampler::Quality::Fastest: return SRC_SINC_FASTEST;
    }
    return SRC_SINC_BEST_QUALITY;
}

} // namespace

Result<Resampler> Resampler::create(int inputRate, int outputRate, int channels, Quality quality) {
    if (inputRate <= 0 || outputRate <= 0 || channels <= 0) {
        return makeError("resampler: invalid rates or channels (" + std::to_string(inputRate) + " Hz -> " +
                         std::to_string(outputRate) + " Hz, " + std::to_string(channels) + " channels)");
    }
    const double ratio = double(outputRate) / double(inputRate);
    if (inputRate == outputRate) return Resampler(inputRate, outputRate, channels, nullptr);
    if (!src_is_valid_ratio(ratio)) {
        return makeError("resampler: cannot convert " + std::to_string(inputRate) + " Hz to " +
                         std::to_string(outputRate) + " Hz (ratio outside 1/256..256)");
    }
    int error = 0;
    SRC_STATE* state = src_new(converterType(quality), channels, &error);
    if (!state) return makeError(std::string("resampler: ") + src_strerror(error));
    return Resampler(inputRate, outputRate, channels, state);
}

Resampler::Resampler(int inputRate, int outputRate, int channels, SRC_STATE_tag* state)
    : m_inputRate(inputRate),
      m_outputRate(outputRate),
      m_channels(channels),
      m_ratio(double(outputRate) / double(inputRate)),
      m_state(state) {}

Resampler::Resampler(Resampler&& other) noexcept
    : m_inputRate(other.m_inputRate),
      m_outputRate(other.m_outputRate),
      m_channels(other.m_channels),
      m_ratio(other.m_ratio),
      m_state(std::exchange(other.m_state, nullptr)) {}

Resampler& Resampler::operator=(Resampler&& other) noexcept {
    if (this != &other) {
        if (m_state) src_delete(m_state);
        m_inputRate = other.m_inputRate;
        m_outputRate = other.m_outputRate;
        m_channels = other.m_channels;
        m_ratio = other.m_ratio;
        m_state = std::exchange(other.m_state, nullptr);
    }
    return *this;
}

Resampler::~Resampler() {
    if (m_state) src_delete(m_state);
}

Result<void> Resampler::process(const float* input, size_t frames, std::vector<float>& out) {
    return run(input, frames, false, out);
}

Result<void> Resampler::flush(std::vector<float>& out) { return run(nullptr, 0, true, out); }

void Resampler::reset() {
    if (m_state) src_reset(m_state);
}

Result<void> Resampler::run(const float* input, size_t frames, bool endOfInput, std::vector<float>& out) {
    const size_t channels = size_t(m_channels);
    if (!m_state) {
        if (frames > 0) out.insert(out.end(), input, input + frames * channels);
        return {};
    }
    static const float kNothing[1] = {0.0f};
    // libsamplerate takes long counts: feed at most a block at a time, and keep calling until
    // the input is used up (and, at the end, until no more output comes).
    constexpr size_t kMaxBlock = 1 << 16;
    size_t done = 0;
    while (true) {
        const size_t block = std::min(frames - done, kMaxBlock);
        const size_t capacity = size_t(double(block) * m_ratio) + 1024;
        const size_t at = out.size();
        out.resize(at + capacity * channels);
        SRC_DATA data{};
        data.data_in = block ? input + done * channels : kNothing;
        data.input_frames = long(block);
        data.data_out = out.data() + at;
        data.output_frames = long(capacity);
        data.end_of_input = (endOfInput && done + block == frames) ? 1 : 0;
        data.src_ratio = m_ratio;
        const int error = src_process(m_state, &data);
        out.resize(at + size_t(data.output_frames_gen) * channels);
        if (error) return makeError(std::string("resampler: ") + src_strerror(error));
        done += size_t(data.input_frames_used);
        if (done >= frames && (!endOfInput || data.output_frames_gen == 0)) break;
        if (data.input_frames_used == 0 && data.output_frames_gen == 0 && !data.end_of_input) {
            return makeError("resampler: libsamplerate made no progress");
        }
    }
    return {};
}

} // namespace hearsay
