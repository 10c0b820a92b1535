// Decoding with FFmpeg (libavformat, libavcodec, libswresample): the fallback for containers
// and codecs libsndfile does not read (video files, m4a/AAC, ...). The first audio stream is used.
#pragma once

#include "core/audio/pcm_consumer.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>

namespace hearsay {

// Feeds the file's best audio stream to consumer as float at its own rate and channel count.
// Returns the format's description ("flv / pcm_s16le"). In a build without FFmpeg it
// returns an error saying so.
Result<std::string> decodeWithFfmpeg(const std::filesystem::path& path, PcmConsumer& consumer);

} // namespace hearsay
