// Decoding with FFmpeg (libavformat, libavcodec, libswresample): the fallback for containers
// and codecs libsndfile does not read (video files, m4a/AAC, ...). The best audio stream is used.
#pragma once

#include "core/audio/pcm_reader.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>

namespace hearsay {

// Opens the file's best audio stream for block-by-block reading, as float at its own rate and
// channel count; format() is e.g. "flv / pcm_s16le". Built only with FFmpeg (hearsay_audio_ffmpeg).
Result<std::unique_ptr<PcmReader>> openWithFfmpeg(const std::filesystem::path& path);

// Makes FFmpeg the container decoder of this process (setContainerDecoder).
void useFfmpegDecoder();

} // namespace hearsay
