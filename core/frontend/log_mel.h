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

// The slaney-normalised mel filterbank librosa (and Whisper) use: [n_mels][201]. The values are
// librosa's float32 ones (the filterbank stored in OpenAI's and whisper.cpp's model files).
std::vector<float> melFilterbank(int nMels);
// The same filterbank in float64, as transformers' mel_filter_bank(norm="slaney",
// mel_scale="slaney") computes it: [n_mels][201]. The frontend computes with these.
std::vector<double> melFilterbankF64(int nMels);

struct LogMel {
    int nMels = 0;
    int frames = 0;
    std::vector<float> data;  // [n_mels][frames], row-major
    float at(int mel, int frame) const { return data[size_t(mel) * size_t(frames) + size_t(frame)]; }
};

// Whole-clip log-mel as the transformers feature extractor computes it for one window:
// the audio is zero-padded (or cut) to 30 s, giving 3000 frames. count may be 0.
LogMel logMelSpectrogram(const float* samples, size_t count, int nMels);

// Incremental frontend for streaming: append audio as it arrives; only frames whose
// samples are all present are computed (each exactly once). window() normalises a range of
// frames as one 30 s input, padding with the frames of silence the reference would see.
// Not thread-safe: one owner (the worker thread) appends and reads.
class LogMelStream {
public:
    explicit LogMelStream(int nMels);
    ~LogMelStream();
    LogMelStream(const LogMelStream&) = delete;
    LogMelStream& operator=(const LogMelStream&) = delete;

    void append(const float* samples, size_t count);
    void reset();
    size_t framesReady() const;     // complete frames available (absolute count since reset)
    size_t samplesAppended() const; // samples appended since reset
    // Frames [first, first + count) as a normalised [n_mels][3000] window (count ≤ 3000; larger
    // counts are cut to 3000). The result equals logMelSpectrogram() of the audio segment that
    // starts at sample first*160 and ends at sample (first + count)*160 or at the last sample
    // appended, whichever comes first: frames inside it are the ones computed on append, the
    // few frames at its edges (reflect padding at the start, zero padding at the end) are
    // recomputed. To take all the audio from `first`, pass count = ceil(samples left / 160).
    // Requires first*160 ≤ samplesAppended() and first ≥ the frame given to discardBefore();
    // outside that, the returned window has frames == 0.
    LogMel window(size_t firstFrame, size_t frameCount) const;
    // Forgets audio and frames before firstFrame (bounded memory in long sessions); windows
    // must then start at or after it. Frame numbering stays absolute.
    void discardBefore(size_t firstFrame);
    struct Impl;
private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace hearsay
