// Opening audio files for transcription: any file libsndfile reads (WAV, FLAC, OGG, MP3, ...)
// or, as the fallback, FFmpeg (video files, m4a, ...), as 16 kHz mono float samples.
#pragma once

#include "core/audio/audio_file_reader.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace hearsay {

struct AudioBuffer {
    std::vector<float> samples;  // [n] mono at sampleRate, nominally in [-1, 1]
    int sampleRate = 16000;      // always the engine's 16 kHz
    int sourceRate = 0;          // the file's sample rate, Hz
    int sourceChannels = 0;      // the file's channel count (averaged to mono)
    size_t sourceFrames = 0;     // frames decoded at the source rate
    std::string decoder;         // "libsndfile" or "FFmpeg"
    std::string format;          // the container/codec as the decoder names it

    double sourceDurationSeconds() const { return sourceRate > 0 ? double(sourceFrames) / sourceRate : 0.0; }
    double durationSeconds() const { return double(samples.size()) / sampleRate; }
};

// Decodes a whole file: channels averaged to mono, resampled to 16 kHz with libsamplerate
// (best quality): the concatenated blocks of AudioFileReader (audio_file_reader.h: in the
// decoder helper process by default), which long files should use directly (here 3 hours cost
// 690 MB of 16 kHz floats). Errors name the file and the reason: missing, empty, truncated,
// unrecognised, no audio; or the helper's failure (crashed, stopped responding, out of memory).
Result<AudioBuffer> decodeAudioFile(const std::filesystem::path& path, const AudioDecodeOptions& options = {});

// Whether this process decodes containers through FFmpeg (container_decoder.h): the decoder
// helper and the test programs do; the application and the CLI leave that to the helper.
bool ffmpegAvailable();

} // namespace hearsay
