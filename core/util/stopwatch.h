// Milliseconds since a point on the steady clock: the one way the engine and the bench time a step.
#pragma once

#include <chrono>

namespace hearsay {

inline double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace hearsay
