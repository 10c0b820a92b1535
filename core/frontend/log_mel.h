// Whisper's log-mel spectrogram: 16 kHz, 400-point STFT (periodic Hann), hop 160, slaney
// mel filterbank, log10, clamp to (max - 8), then (x + 4) / 4 — as the reference does.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace hearsay {

constexpr int kSampleRate = 16000;
constexpr int kFftSize = 400;
constexpr int kHopLength = 160;
constexpr int kChunkSamples = 30 * kSampleRate;   // 480000
constexpr int kChunkFrames = kChunkSamples / kHopLength;  // 3000

// The slaney-normalised mel filterbank librosa (and Whisper) use: [n_mels][201].
std::vector<float> melFilterbank(int nMels);

struct LogMel {
    int nMels = 0;
    int frames = 0;
    std::vector<float> data;  // [n_mels][frames], row-major
    float at(int mel, int frame) const { return data[size_t(mel) * size_t(frames) + size_t(frame)]; }
};

// Whole-clip log-mel as the transformers feature extractor computes it for one window:
// the audio is zero-padded (or cut) to 30 s, giving 3000 frames.
LogMel logMelSpectrogram(const float* samples, size_t count, int nMels);

// Incremental frontend for streaming: append audio as it arrives; only frames whose
// samples are all present are computed (each exactly once). window() normalises a range of
// frames as one 30 s input, padding with the frames of silence the reference would see.
class LogMelStream {
public:
    explicit LogMelStream(int nMels);
    ~LogMelStream();
    void append(const float* samples, size_t count);
    void reset();
    size_t framesReady() const;   // complete frames available
    // Frames [first, first + count) as a normalised [n_mels][3000] window (count ≤ 3000).
    LogMel window(size_t firstFrame, size_t frameCount) const;
    struct Impl;
private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace hearsay
