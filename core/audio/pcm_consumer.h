// The receiving end of a file decoder: it learns the stream's format once, then gets
// interleaved float blocks. Lets each decoder (libsndfile, FFmpeg) stay a plain loop.
#pragma once

#include "core/util/result.h"

#include <cstddef>

namespace hearsay {

class PcmConsumer {
public:
    virtual ~PcmConsumer() = default;
    // Called once, before the first block.
    virtual Result<void> begin(int sampleRate, int channels) = 0;
    // interleaved: [frames][channels] float samples, nominally in [-1, 1].
    virtual Result<void> consume(const float* interleaved, size_t frames) = 0;
};

} // namespace hearsay
