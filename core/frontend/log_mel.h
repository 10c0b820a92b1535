// Whisper's log-mel spectrogram: 16 kHz, 400-point STFT (periodic Hann), hop 160, slaney
// mel filterbank, log10, clamp to (max - 8), then (x + 4) / 4 — as the reference does.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
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

// How a window of a longer recording becomes one 30 s encoder input.
enum class MelPadding {
    // The recording's own frames (one STFT over the whole recording, as OpenAI's and faster-whisper's
    // transcribe() compute it: a frame at the window's edge sees the audio beyond the edge, and
    // zeros only after the last sample), clamped to (max - 8), scaled, then 0.0 up to 3000 frames.
    Zero,
    // The segment alone as a 30 s clip (transformers' feature extractor on the segment, i.e.
    // logMelSpectrogram()): reflect padding at its start, zeros after its end, and the log-mel
    // of those zeros up to 3000 frames, normalised together.
    Silence,
};

struct MelWindowOptions {
    MelPadding padding = MelPadding::Zero;
    // Zero padding: the log10 maximum to clamp against (the whole recording's, as the reference
    // does for files; see LogMelStream::maxLog10()). None: the window's own frames' maximum.
    std::optional<float> clampMax;
};

// The log-mel of a continuous recording, computed frame by frame as audio arrives (each frame
// once, when its last sample is there). Serves the windows of long-form file transcription and
// of live streaming. Not thread-safe: one owner (the worker thread) appends and reads.
class LogMelStream {
public:
    explicit LogMelStream(int nMels);
    ~LogMelStream();
    LogMelStream(const LogMelStream&) = delete;
    LogMelStream& operator=(const LogMelStream&) = delete;

    void append(const float* samples, size_t count);
    // The recording ended: its last frames are computed with zeros after the last sample, as
    // the reference pads a file. Frames 0 .. samplesAppended()/160 then exist (one more than the
    // reference's content frames, as faster-whisper's feature extractor gives). Append after
    // finish() is not allowed (ignored).
    void finish();
    void reset();
    size_t framesReady() const;     // frames computed (absolute count since reset)
    size_t samplesAppended() const; // samples appended since reset
    bool finished() const;
    // The largest log10 mel value of every frame computed since reset (also those discarded):
    // after finish(), the whole recording's maximum, which the reference clamps against.
    // -inf before any frame.
    float maxLog10() const;

    // Frames [first, first + count) (count ≤ 3000; larger counts are cut to 3000) as a normalised
    // [n_mels][3000] window, padded as `options` says. Frames whose samples have not all arrived
    // are computed as if the recording ended at the last sample appended.
    // Requires first ≥ the frame given to discardBefore() and first*160 ≤ samplesAppended();
    // Zero padding also requires first + count - 1 ≤ samplesAppended()/160 (frames whose centre
    // lies inside the audio). Outside that, the returned window has frames == 0.
    LogMel window(size_t firstFrame, size_t frameCount, const MelWindowOptions& options = {}) const;
    // Forgets audio and frames before firstFrame (bounded memory in long sessions); windows
    // must then start at or after it. Frame numbering stays absolute.
    void discardBefore(size_t firstFrame);
    struct Impl;
private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace hearsay
