// Writing audio files with libsndfile: saving recordings (WAV, FLAC, OGG/Vorbis, MP3) and
// making test inputs at any rate and channel count.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <filesystem>

namespace hearsay {

enum class AudioFileFormat {
    Wav16,      // WAV, 16-bit PCM
    WavFloat,   // WAV, 32-bit float
    Flac16,     // FLAC, 16-bit
    OggVorbis,  // Ogg Vorbis (lossy)
    Mp3,        // MPEG-1/2 Layer III (lossy; needs libsndfile built with LAME)
};

// Writes interleaved samples [frames][channels] (nominally in [-1, 1]).
Result<void> writeAudioFile(const std::filesystem::path& path, const float* interleaved, size_t frames,
                            int sampleRate, int channels, AudioFileFormat format);

} // namespace hearsay
