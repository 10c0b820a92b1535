// The decoder for the containers and codecs libsndfile does not read (video files, m4a/AAC, ...):
// FFmpeg, which only the programs that decode files themselves link and set here: the decoder
// helper (hearsay-decode) and the test and fuzz programs that decode in their own process. The
// application and the command-line tool decode files in the helper, so they map none of
// FFmpeg's libraries (about 130 shared objects, 16 MiB resident in a transcription).
#pragma once

#include "core/audio/pcm_reader.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>

namespace hearsay {

using ContainerOpener = Result<std::unique_ptr<PcmReader>> (*)(const std::filesystem::path& path);

// Sets the decoder AudioBlockDecoder falls back to (nullptr: none). Any thread.
void setContainerDecoder(ContainerOpener opener);
// The one set, or nullptr.
ContainerOpener containerDecoder();

} // namespace hearsay
