// The pulling end of a file decoder: a file's audio as interleaved float blocks at its own
// rate, one block per call, so that a three-hour file is never held in memory whole.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hearsay {

class PcmReader {
public:
    virtual ~PcmReader() = default;

    virtual int sampleRate() const = 0;  // Hz, > 0
    virtual int channels() const = 0;    // ≥ 1
    // The container/codec as the decoder names it, e.g. "WAV (Microsoft), Signed 16 bit PCM".
    virtual const std::string& format() const = 0;

    // Replaces `block` with the next frames, interleaved [frames][channels] float samples
    // nominally in [-1, 1]; returns the frame count, 0 at the end of the stream. Problems found
    // on the way or at the end (read errors, a file shorter than its header says) are errors.
    virtual Result<size_t> next(std::vector<float>& block) = 0;
};

} // namespace hearsay
