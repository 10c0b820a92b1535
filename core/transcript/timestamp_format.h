// Time stamps as subtitle formats write them: HH:MM:SS,mmm (SRT) and [HH:]MM:SS.mmm (VTT).
#pragma once

#include <string>

namespace hearsay {

// Milliseconds rounded half to even (Python's round); negative times clamp to 0. Hours are
// always written when alwaysIncludeHours, else only when nonzero.
std::string formatTimestamp(double seconds, bool alwaysIncludeHours, char decimalMarker);

} // namespace hearsay
