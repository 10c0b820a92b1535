// Decoding with libsndfile: WAV (and its relatives), FLAC, OGG/Vorbis/Opus, MP3, AIFF, ...
#pragma once

#include "core/audio/pcm_consumer.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>

namespace hearsay {

struct SndfileOutcome {
    bool recognised = false;  // false: libsndfile cannot open it (another decoder may)
    std::string format;       // when recognised, e.g. "WAV (Microsoft), Signed 16 bit PCM"
    std::string whyNot;       // when not, libsndfile's reason, e.g. "Format not recognised."
};

// Feeds the whole file to consumer. A file libsndfile cannot open is not an error here (the
// caller may try FFmpeg): the outcome says so. Errors after a successful open (truncated data,
// read errors, a bad header) are returned as errors.
Result<SndfileOutcome> decodeWithSndfile(const std::filesystem::path& path, PcmConsumer& consumer);

} // namespace hearsay
