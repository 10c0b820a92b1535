// The energy gate: chunk RMS in dBFS against a noise floor that is the quietest chunk of the
// last 1.5 s (minimum statistics, so that it follows a changing room within that time).
#include "core/audio/energy_gate.h"

#include <algorithm>
#include <cmath>

namespace hearsay {

EnergyGate::EnergyGate(std::string reason, const EnergyGateOptions& options)
    : m_options(options),
      m_reason(std::move(reason)),
      m_window(std::clamp(int(std::lround(options.floorSeconds * kVadSampleRate / kVadChunkSamples)), 1, kMaxHistory)) {}

void EnergyGate::reset() {
    m_count = 0;
    m_next = 0;
}

std::string EnergyGate::describe() const { return "energy gate (fallback: " + m_reason + ")"; }

float EnergyGate::noiseFloorDb() const {
    if (m_count == 0) return m_options.lowestFloorDb;
    const float quietest = *std::min_element(m_levels.begin(), m_levels.begin() + m_count);
    return std::max(quietest, m_options.lowestFloorDb);
}

float EnergyGate::process(std::span<const float, kVadChunkSamples> chunk) {
    double sumSquares = 0.0;
    for (float s : chunk) sumSquares += double(s) * double(s);
    const float levelDb = float(10.0 * std::log10(sumSquares / kVadChunkSamples + 1e-12));

    m_levels[size_t(m_next)] = levelDb;  // the floor includes this chunk: a stream opening on speech is not speech until a quieter moment
    m_next = (m_next + 1) % m_window;
    m_count = std::min(m_count + 1, m_window);

    const float gateDb = std::max(noiseFloorDb() + m_options.marginDb, m_options.minLevelDb);
    return 1.0f / (1.0f + std::exp(-(levelDb - gateDb) / m_options.slopeDb));
}

} // namespace hearsay
