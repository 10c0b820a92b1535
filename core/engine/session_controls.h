// The requests another thread makes to a running session (the GUI's Cancel and switches, a
// CLI's Ctrl-C, a streaming controller): atomics, written by anyone, read by the session's own
// thread at its next encoder run or decoder step (ControlledSession).
#pragma once

#include "core/nn/inference_session.h"

#include <atomic>

namespace hearsay {

struct SessionControls {
    std::atomic<bool> cancel{false};     // fail the next encode()/decode() (ErrorKind::Cancelled)
    std::atomic<bool> selfCache{true};   // wanted state of the self-attention cache
    std::atomic<bool> crossCache{true};  // wanted state of the cross-attention cache
    std::atomic<bool> stepGraphs{true};  // wanted state of the decode step graphs

    SessionControls() = default;
    // Wanting the switches `options` starts a session with.
    explicit SessionControls(const SessionOptions& options) { want(options); }

    void want(const SessionOptions& options) {
        selfCache = options.selfAttentionCache;
        crossCache = options.crossAttentionCache;
        stepGraphs = options.stepGraphs;
    }
};

} // namespace hearsay
