// Where the streaming window is cut: the audio a step decodes runs from the window's start (the
// last commit point) to the newest sample, at most Whisper's 30 s. A window longer than
// trimSeconds moves its start to its last committed segment boundary; one that reaches
// maxWindowSeconds without such a boundary is committed by force, through the hypothesis's last
// boundary, or whole, and starts again. The decision only; StreamingSession carries it out.
#pragma once

#include "core/streaming/local_agreement.h"
#include "core/streaming/streaming_options.h"

#include <cstdint>

namespace hearsay {

inline constexpr uint64_t kStreamingRate = 16000;            // samples per second
inline constexpr uint64_t kTimestampSamples = 320;           // one timestamp step, 0.02 s

struct WindowCut {
    enum class Kind {
        Keep,                  // the window stays as it is
        AtCommittedBoundary,   // start the window at `boundary` (inside the committed tokens)
        CommitThroughBoundary, // commit the tentative tokens up to `boundary` by force, then start there
        CommitAll,             // commit everything tentative and start a new window at the step's end
    };
    Kind kind = Kind::Keep;
    LocalAgreement::Boundary boundary;  // for the two boundary kinds
};

// The cut for a window [windowStart, end) (samples) whose tokens `agreement` holds. A boundary
// whose time lies past `end` (a timestamp the model placed beyond its audio) is none.
WindowCut planWindowCut(const LocalAgreement& agreement, uint64_t windowStart, uint64_t end,
                        const StreamingOptions& options);

} // namespace hearsay
