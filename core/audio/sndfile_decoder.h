// Decoding with libsndfile: WAV (and its relatives), FLAC, OGG/Vorbis/Opus, MP3, AIFF, ...
#pragma once

#include "core/audio/pcm_reader.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>
#include <string>

namespace hearsay {

struct SndfileOpened {
    std::unique_ptr<PcmReader> reader;  // null: libsndfile cannot open it (another decoder may)
    std::string whyNot;                 // then libsndfile's reason, e.g. "Format not recognised."
};

// Opens the file for block-by-block reading. A file libsndfile does not recognise is not an
// error here (the caller may try FFmpeg): `reader` is null and `whyNot` says why. A recognised
// file with a broken header (or a WAV whose data chunk runs past the end) is an error.
Result<SndfileOpened> openWithSndfile(const std::filesystem::path& path);

} // namespace hearsay
