// Trailing n-gram loop detection on the text tokens of a decoded window.
#include "core/decoding/repetition_detector.h"

#include <algorithm>

namespace hearsay {

RepetitionLoop findTrailingLoop(const std::vector<int>& tokens, int timestampBegin, int maxPeriod, int minRepeats,
                                int minSpan) {
    std::vector<int> text;
    std::vector<size_t> position;  // index in tokens of each text token
    for (size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] < timestampBegin) {
            text.push_back(tokens[i]);
            position.push_back(i);
        }
    const int n = int(text.size());
    RepetitionLoop best;
    for (int p = 1; p <= maxPeriod && 2 * p <= n; ++p) {
        // Count trailing tokens equal to the token one period earlier.
        int matching = 0;
        while (matching < n - p && text[size_t(n - 1 - matching)] == text[size_t(n - 1 - matching - p)]) ++matching;
        const int repeats = (matching + p) / p;  // whole periods in the periodic tail
        if (repeats >= minRepeats && repeats * p >= minSpan && repeats * p > best.repeats * best.period) {
            best.period = p;
            best.repeats = repeats;
            const int loopStart = n - matching - p;  // first token of the first occurrence
            best.keepUntil = position[size_t(loopStart + p - 1)] + 1;
        }
    }
    return best;
}

} // namespace hearsay
