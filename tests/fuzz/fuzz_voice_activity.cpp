// Silero VAD (the bundled weights) on arbitrary samples: NaN, infinities, denormals, huge values.
// Every probability is a number in [0, 1], and a bad chunk does not poison the chunks after it
// (the LSTM state carries over): after the input, a second of silence reads as silence.
#include "fuzz_support.h"

#include "core/audio/silero_vad.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static std::optional<hearsay::SileroVad> vad = [] {
        auto loaded = hearsay::SileroVad::loadBundled();
        if (!loaded) hearsay::fuzz::fail(loaded.message().c_str());
        return std::optional<hearsay::SileroVad>(std::move(loaded.value()));
    }();
    vad->reset();
    std::array<float, hearsay::kVadChunkSamples> chunk{};
    // At most 64 chunks (2 s) an input: the state questions show up within a few chunks, and
    // whole megabytes of samples would leave a few executions a second.
    const size_t floats = std::min(size / sizeof(float), size_t(64) * chunk.size());
    for (size_t begin = 0; begin < floats; begin += chunk.size()) {
        chunk.fill(0.0f);
        const size_t n = std::min(chunk.size(), floats - begin);
        std::memcpy(chunk.data(), data + begin * sizeof(float), n * sizeof(float));
        const float p = vad->process(chunk);
        HEARSAY_FUZZ_CHECK(p >= 0.0f && p <= 1.0f);
    }
    chunk.fill(0.0f);
    float last = 1.0f;
    for (int i = 0; i < 32; ++i) last = vad->process(chunk);
    HEARSAY_FUZZ_CHECK(last < 0.5f);
    return 0;
}
