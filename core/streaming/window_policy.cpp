// The window's cut (see window_policy.h).
#include "core/streaming/window_policy.h"

namespace hearsay {

WindowCut planWindowCut(const LocalAgreement& agreement, uint64_t windowStart, uint64_t end,
                        const StreamingOptions& options) {
    const double windowSeconds = double(end - windowStart) / double(kStreamingRate);
    if (windowSeconds <= options.trimSeconds) return {};
    auto inWindow = [&](const LocalAgreement::Boundary& b) {
        return b.steps > 0 && windowStart + uint64_t(b.steps) * kTimestampSamples <= end;
    };
    WindowCut cut;
    if (agreement.lastCommittedBoundary(cut.boundary) && inWindow(cut.boundary)) {
        cut.kind = WindowCut::Kind::AtCommittedBoundary;
        return cut;
    }
    if (windowSeconds <= options.maxWindowSeconds) return {};
    // Too long without a committed boundary: commit up to the last boundary of the hypothesis,
    // or everything, so that the next window fits Whisper's 30 s.
    if (agreement.lastBoundary(cut.boundary) && inWindow(cut.boundary) &&
        cut.boundary.index > agreement.committedInWindow().size()) {
        cut.kind = WindowCut::Kind::CommitThroughBoundary;
        return cut;
    }
    return {WindowCut::Kind::CommitAll, {}};
}

} // namespace hearsay
