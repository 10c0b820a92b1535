// Linked into the test and fuzz programs: they decode odd and hostile files in their own process
// too, with FFmpeg as the container decoder, as the decoder helper does (container_decoder.h).
#include "core/audio/ffmpeg_decoder.h"

namespace {
[[maybe_unused]] const bool kFfmpegSet = (hearsay::useFfmpegDecoder(), true);
}
