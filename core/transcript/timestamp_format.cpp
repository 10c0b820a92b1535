// Subtitle time stamp formatting (whisper/utils.py format_timestamp).
#include "core/transcript/timestamp_format.h"

#include <cmath>
#include <cstdio>

namespace hearsay {

std::string formatTimestamp(double seconds, bool alwaysIncludeHours, char decimalMarker) {
    if (!(seconds > 0.0)) seconds = 0.0;
    long long ms = (long long)std::nearbyint(seconds * 1000.0);
    const long long hours = ms / 3600000;
    ms -= hours * 3600000;
    const long long minutes = ms / 60000;
    ms -= minutes * 60000;
    const long long secs = ms / 1000;
    ms -= secs * 1000;
    char buffer[64];
    if (alwaysIncludeHours || hours > 0)
        std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld%c%03lld", hours, minutes, secs, decimalMarker, ms);
    else
        std::snprintf(buffer, sizeof buffer, "%02lld:%02lld%c%03lld", minutes, secs, decimalMarker, ms);
    return buffer;
}

} // namespace hearsay
