// Averaging interleaved channels to mono: the one downmix every path into the engine uses
// (files, the microphone, simulated live input).
#pragma once

#include <cstddef>
#include <vector>

namespace hearsay {

// What a sample may be after the downmix: NaN (a float file or a broken device can carry it)
// becomes silence, and anything past ±16 (24 dB over full scale, infinities included) is clipped
// there, so that the resampler and the log-mel see only finite numbers of a sane size.
inline constexpr float kMaxSampleMagnitude = 16.0f;

inline float saneSample(float x) {
    if (!(x == x)) return 0.0f;  // NaN
    return x > kMaxSampleMagnitude ? kMaxSampleMagnitude : x < -kMaxSampleMagnitude ? -kMaxSampleMagnitude : x;
}

// interleaved: [frames][channels] -> mono: [frames], the average of the channels, each sample
// made sane (saneSample) first.
inline void downmixToMono(const float* interleaved, size_t frames, int channels, std::vector<float>& mono) {
    mono.resize(frames);
    if (channels == 1) {
        for (size_t i = 0; i < frames; ++i) mono[i] = saneSample(interleaved[i]);
        return;
    }
    const size_t n = size_t(channels);
    const float scale = 1.0f / float(channels);
    for (size_t i = 0; i < frames; ++i) {
        float sum = 0.0f;
        for (size_t c = 0; c < n; ++c) sum += saneSample(interleaved[i * n + c]);
        mono[i] = sum * scale;
    }
}

} // namespace hearsay
