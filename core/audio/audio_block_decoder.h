// Reading an audio file as a sequence of 16 kHz mono blocks, so that memory stays bounded
// however long the file (a three-hour recording is never held whole): the input of file
// transcription and of the simulated live source.
#pragma once

#include "core/audio/pcm_reader.h"
#include "core/audio/resampler.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace hearsay {

struct AudioFileInfo {
    int sourceRate = 0;      // the file's sample rate, Hz
    int sourceChannels = 0;  // the file's channel count (averaged to mono)
    std::string decoder;     // "libsndfile" or "FFmpeg"
    std::string format;      // the container/codec as the decoder names it
};

// libsndfile first (WAV, FLAC, OGG, MP3, AIFF, ...); FFmpeg when libsndfile does not recognise
// the file (video containers, m4a, ...; build option HEARSAY_FFMPEG). Each block is one decoder
// block (8192 source frames with libsndfile, one codec frame with FFmpeg) averaged to mono and
// resampled with libsamplerate, whose state carries over from block to block: the
// concatenated blocks equal decodeAudioFile()'s samples exactly.
//
// Not thread-safe: one thread at a time. Errors name the file and the reason (missing, empty,
// truncated, unrecognised, no audio); one found part-way (truncation) comes from next() after the
// blocks before it were delivered.
class AudioBlockDecoder {
public:
    static constexpr int kSampleRate = 16000;

    static Result<AudioBlockDecoder> open(const std::filesystem::path& path,
                                          Resampler::Quality quality = Resampler::Quality::Best);

    AudioBlockDecoder(AudioBlockDecoder&&) noexcept;
    AudioBlockDecoder& operator=(AudioBlockDecoder&&) noexcept;
    ~AudioBlockDecoder();

    // Replaces `block` with the next 16 kHz mono samples (never empty when it returns true);
    // false at the end of the file. A file that ends without a single sample is an error.
    Result<bool> next(std::vector<float>& block);
    // Back to the first sample (the file is opened again; a file changed meanwhile is re-read).
    Result<void> rewind();

    const AudioFileInfo& info() const { return m_info; }
    const std::filesystem::path& path() const { return m_path; }
    uint64_t sourceFramesRead() const { return m_sourceFrames; }  // at the source rate, so far
    uint64_t samplesDelivered() const { return m_samples; }       // at 16 kHz, so far

private:
    AudioBlockDecoder(std::filesystem::path path, Resampler::Quality quality);
    Result<void> openReader(bool ffmpegOnly);
    Error fileError(const std::string& reason) const;

    std::filesystem::path m_path;
    Resampler::Quality m_quality;
    AudioFileInfo m_info;
    std::unique_ptr<PcmReader> m_reader;
    std::unique_ptr<Resampler> m_resampler;  // source rate -> 16 kHz, mono
    std::vector<float> m_interleaved;        // [frames][channels] scratch
    std::vector<float> m_mono;               // [frames] scratch
    uint64_t m_sourceFrames = 0;
    uint64_t m_samples = 0;
    bool m_ended = false;
};

} // namespace hearsay
