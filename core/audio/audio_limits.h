// The audio parameters Hearsay accepts from a file or a device, checked before any of them
// reaches FFmpeg, libsndfile, libsamplerate or the mixer. Values outside are reported as an
// invalid file or device, never passed on.
#pragma once

#include "core/util/result.h"

#include <string>

namespace hearsay {

inline constexpr int kMaxAudioChannels = 1024;  // libsndfile's own limit
inline constexpr int kMinAudioRate = 1000;      // Hz; 16 kHz / 1 kHz is well inside libsamplerate's 256
inline constexpr int kMaxAudioRate = 768000;    // Hz; the highest PCM rate in use

// "invalid channel count 0 (1 to 1024 are accepted)", or nothing when both are in range.
inline Result<void> checkAudioShape(double rate, int channels) {
    if (channels < 1 || channels > kMaxAudioChannels) {
        return makeError("invalid channel count " + std::to_string(channels) + " (1 to " +
                         std::to_string(kMaxAudioChannels) + " are accepted)");
    }
    if (!(rate >= kMinAudioRate && rate <= kMaxAudioRate)) {  // NaN fails too
        return makeError("invalid sample rate " + std::to_string(static_cast<long long>(rate)) + " Hz (" +
                         std::to_string(kMinAudioRate) + " to " + std::to_string(kMaxAudioRate) + " Hz are accepted)");
    }
    return {};
}

} // namespace hearsay
