// Averaging interleaved channels to mono: the one downmix every path into the engine uses
// (files, the microphone, simulated live input).
#pragma once

#include <cstddef>
#include <vector>

namespace hearsay {

// interleaved: [frames][channels] -> mono: [frames], the average of the channels (a copy when
// channels == 1).
inline void downmixToMono(const float* interleaved, size_t frames, int channels, std::vector<float>& mono) {
    mono.resize(frames);
    if (channels == 1) {
        mono.assign(interleaved, interleaved + frames);
        return;
    }
    const size_t n = size_t(channels);
    const float scale = 1.0f / float(channels);
    for (size_t i = 0; i < frames; ++i) {
        float sum = 0.0f;
        for (size_t c = 0; c < n; ++c) sum += interleaved[i * n + c];
        mono[i] = sum * scale;
    }
}

} // namespace hearsay
