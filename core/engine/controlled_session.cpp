// Steering of a session from another thread (see controlled_session.h).
#include "core/engine/controlled_session.h"

namespace hearsay {
namespace {

Error cancelledError() { return makeError("transcription cancelled", ErrorKind::Cancelled); }

} // namespace

ControlledSession::ControlledSession(std::unique_ptr<InferenceSession> inner, std::shared_ptr<SessionControls> controls,
                                     int maxBeams)
    : m_inner(std::move(inner)), m_controls(std::move(controls)), m_maxBeams(maxBeams) {
    if (!m_controls) {  // nobody steers it from outside: it keeps the switches it was made with
        m_controls = std::make_shared<SessionControls>();
        m_controls->selfCache = m_inner->selfAttentionCache();
        m_controls->crossCache = m_inner->crossAttentionCache();
        m_controls->stepGraphs = m_inner->stepGraphs();
    }
}

bool ControlledSession::applyRequestedSwitches() {
    bool changed = false;
    const bool self = m_controls->selfCache.load();
    const bool cross = m_controls->crossCache.load();
    if (self != m_inner->selfAttentionCache()) {
        m_inner->setSelfAttentionCache(self);
        changed = true;
    }
    if (cross != m_inner->crossAttentionCache()) {
        m_inner->setCrossAttentionCache(cross);
        changed = true;
    }
    const bool graphs = m_controls->stepGraphs.load();
    if (graphs != m_inner->stepGraphs()) {
        m_inner->setStepGraphs(graphs);
        changed = true;
    }
    return changed;
}

Result<void> ControlledSession::encode(const LogMel& mel, int audioContext) {
    if (m_controls->cancel.load()) return cancelledError();
    applyRequestedSwitches();
    auto result = m_inner->encode(mel, audioContext);
    if (result) {
        const SessionTimings t = m_inner->timings();
        m_counters.lastEncoderMs = t.encoderMs;
        m_counters.encoderMs += t.encoderMs;
        ++m_counters.windows;
    }
    return result;
}

Result<void> ControlledSession::decode(const std::vector<std::vector<int>>& beamTokens, std::vector<float>& logits) {
    if (m_controls->cancel.load()) return cancelledError();
    applyRequestedSwitches();
    const SessionTimings before = m_inner->timings();
    auto result = m_inner->decode(beamTokens, logits);
    const SessionTimings after = m_inner->timings();
    m_counters.decodeMs += after.decodeMs - before.decodeMs;
    m_counters.decodeCalls += after.decodeCalls - before.decodeCalls;
    m_counters.tokensDecoded += after.tokensDecoded - before.tokensDecoded;
    m_counters.stepRecordings += after.stepRecordings - before.stepRecordings;
    m_counters.stepReplays += after.stepReplays - before.stepReplays;
    if (result) observe();
    return result;
}

Result<ForcedPass> ControlledSession::forcedPass(const ForcedPassRequest& request) {
    if (m_controls->cancel.load()) return cancelledError();
    applyRequestedSwitches();
    const SessionTimings before = m_inner->timings();
    auto result = m_inner->forcedPass(request);
    const SessionTimings after = m_inner->timings();
    m_counters.decodeMs += after.decodeMs - before.decodeMs;
    m_counters.tokensDecoded += after.tokensDecoded - before.tokensDecoded;
    return result;
}

void ControlledSession::setObserver(std::function<void()> observer, std::chrono::milliseconds interval) {
    m_observer = std::move(observer);
    m_interval = interval;
    m_lastObserved = std::chrono::steady_clock::now();
}

void ControlledSession::observe() {
    if (!m_observer) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastObserved < m_interval) return;
    m_lastObserved = now;
    m_observer();
}

} // namespace hearsay
