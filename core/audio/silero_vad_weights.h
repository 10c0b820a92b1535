// The Silero VAD weights built into the binary (resources/silero_vad_v6.2_16k.safetensors: the
// silero-vad 6.2.3 package's 16 kHz model, MIT): the application finds them with no file or setting.
#pragma once

#include <cstddef>
#include <span>

namespace hearsay {

// The bytes of that safetensors file; empty if this build carries none.
std::span<const std::byte> bundledSileroVadWeights();

// How messages and the UI name them.
inline constexpr const char* kBundledSileroVadName = "built-in silero_vad_v6.2_16k.safetensors";

} // namespace hearsay
