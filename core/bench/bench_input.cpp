// The benchmark's input window, built from a 16 kHz mono 16-bit WAV (core/frontend/pcm_wav.h).
#include "core/bench/bench_input.h"

#include <algorithm>

namespace hearsay {

Result<LogMel> benchWindow(const std::filesystem::path& wav, int nMels) {
    auto samples = readPcm16Wav(wav);
    if (!samples) return samples.error();
    const size_t count = std::min<size_t>(samples->size(), size_t(kChunkSamples));
    return logMelSpectrogram(samples->data(), count, nMels);
}

} // namespace hearsay
