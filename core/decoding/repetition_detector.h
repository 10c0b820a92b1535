// Detects a decoding loop: the text tokens at the end of a window repeating one n-gram over and
// over (a failure mode of Whisper that runs until the sample limit).
#pragma once

#include <cstddef>
#include <vector>

namespace hearsay {

struct RepetitionLoop {
    int period = 0;      // tokens in the repeated n-gram
    int repeats = 0;     // how many times it occurs back to back at the end
    size_t keepUntil = 0;  // index into the input after the loop's first occurrence (cut point)
};

// Looks at text tokens only (ids below timestampBegin); a loop is `period` ≤ maxPeriod tokens repeated
// at least minRepeats times covering at least minSpan tokens at the end. Returns repeats == 0 if none.
RepetitionLoop findTrailingLoop(const std::vector<int>& tokens, int timestampBegin, int maxPeriod = 32,
                                int minRepeats = 3, int minSpan = 12);

} // namespace hearsay
