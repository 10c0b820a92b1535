// The engine's own reader for 16 kHz mono 16-bit PCM WAV, the format of the shared test clips.
// Engine-only builds (no audio library: bare GPU machines) read their input with it; the
// application reads every other format through core/audio.
#pragma once

#include "core/util/result.h"

#include <filesystem>
#include <vector>

namespace hearsay {

// Samples of a RIFF/WAVE file holding 16-bit PCM, mono, 16 kHz, scaled to [-1, 1). Anything else
// (other formats, truncated chunks) is an error naming the file and what was found.
Result<std::vector<float>> readPcm16Wav(const std::filesystem::path& path);

} // namespace hearsay
