// The benchmark's input window: a 16 kHz mono 16-bit PCM WAV (real speech from the shared test
// data by default) turned into one [n_mels][3000] log-mel window. Read with the engine's own WAV
// reader rather than the audio library so the benchmark also runs in engine-only builds.
#pragma once

#include "core/frontend/log_mel.h"
#include "core/frontend/pcm_wav.h"
#include "core/util/result.h"

#include <filesystem>
#include <vector>

namespace hearsay {

// The first 30 s of the file as one log-mel window (zero-padded when shorter).
Result<LogMel> benchWindow(const std::filesystem::path& wav, int nMels);

} // namespace hearsay
