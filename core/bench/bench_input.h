// The benchmark's input window: a 16 kHz mono 16-bit PCM WAV (real speech from the shared test
// data by default) turned into one [n_mels][3000] log-mel window. Read here rather than through
// the audio library so the benchmark also runs in engine-only builds on bare GPU machines.
#pragma once

#include "core/frontend/log_mel.h"
#include "core/util/result.h"

#include <filesystem>
#include <vector>

namespace hearsay {

// Samples of a RIFF/WAVE file holding 16-bit PCM, mono, 16 kHz, scaled to [-1, 1). Anything else
// (other formats, truncated chunks) is an error naming the file and what was found.
Result<std::vector<float>> readPcm16Wav(const std::filesystem::path& path);

// The first 30 s of the file as one log-mel window (zero-padded when shorter).
Result<LogMel> benchWindow(const std::filesystem::path& wav, int nMels);

} // namespace hearsay
