// The stand-in for Silero VAD when no weights can be loaded: a level gate above the noise floor.
// Much cruder (it takes any loud sound for speech); reported as a fallback everywhere.
#pragma once

#include "core/audio/vad_model.h"

#include <array>
#include <string>

namespace hearsay {

struct EnergyGateOptions {
    float marginDb = 10.0f;          // speech: this much above the noise floor...
    float minLevelDb = -50.0f;       // ...and above this level (chunk RMS, dB relative to full scale)
    float slopeDb = 2.0f;            // width of the soft step from 0 to 1 around the gate
    float floorSeconds = 1.5f;       // the noise floor is the quietest chunk of this much recent audio (at most 2 s)
    float lowestFloorDb = -70.0f;    // floor never below this (digital silence would hide the room's noise)
};

class EnergyGate final : public VadModel {
public:
    // `reason`: why the fallback is in use, shown by describe().
    explicit EnergyGate(std::string reason, const EnergyGateOptions& options = {});

    // A probability-like score: sigmoid((level - gate) / slope), gate = max(floor + margin,
    // minLevel), level = the chunk's RMS in dBFS; 0.5 exactly at the gate.
    float process(std::span<const float, kVadChunkSamples> chunk) override;
    void reset() override;
    std::string describe() const override;
    bool isFallback() const override { return true; }

    float noiseFloorDb() const;  // over the chunks seen so far (lowestFloorDb before any)

private:
    static constexpr int kMaxHistory = 64;  // chunks: 2 s
    EnergyGateOptions m_options;
    std::string m_reason;
    int m_window;                              // chunks in floorSeconds
    std::array<float, kMaxHistory> m_levels{}; // recent chunk levels, dBFS, a ring
    int m_count = 0;                           // levels stored (<= m_window)
    int m_next = 0;                            // ring position of the next level
};

} // namespace hearsay
