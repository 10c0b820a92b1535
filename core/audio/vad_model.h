// What turns 32 ms of audio into a speech probability: Silero VAD, or the energy gate that
// stands in for it when no weights are available. State is carried from chunk to chunk.
#pragma once

#include "core/audio/vad_options.h"

#include <span>
#include <string>

namespace hearsay {

class VadModel {
public:
    virtual ~VadModel() = default;
    // The speech probability of the next chunk of the stream: 512 samples, 16 kHz mono, [-1, 1].
    virtual float process(std::span<const float, kVadChunkSamples> chunk) = 0;
    // A new stream begins: forget what was carried over from the previous chunks.
    virtual void reset() = 0;
    // For logs and the UI: "Silero VAD v6 (...)", "energy gate (fallback: ...)".
    virtual std::string describe() const = 0;
    // True for a stand-in of lower quality than Silero VAD.
    virtual bool isFallback() const = 0;
};

} // namespace hearsay
