// An InferenceSession that another thread can steer: the cache and step graph switches asked for
// through SessionControls are applied between decoder steps (the engine allows them there, not
// during a step), a cancel request fails the next call (ErrorKind::Cancelled), and the run's
// counters are kept per call. What Engine::createSession() hands out to the CLI, the bench, the
// GUI's file transcription and streaming. Plain C++: only SessionControls is touched elsewhere.
#pragma once

#include "core/engine/session_controls.h"
#include "core/nn/inference_session.h"

#include <chrono>
#include <functional>
#include <memory>

namespace hearsay {

// Counters of one transcription, summed over the session's calls.
struct SessionCounters {
    double lastEncoderMs = 0.0;
    double encoderMs = 0.0;
    int windows = 0;
    double decodeMs = 0.0;
    int decodeCalls = 0;
    int tokensDecoded = 0;
    int stepRecordings = 0;
    int stepReplays = 0;
};

class ControlledSession final : public InferenceSession {
public:
    ControlledSession(std::unique_ptr<InferenceSession> inner, std::shared_ptr<SessionControls> controls, int maxBeams);

    using InferenceSession::encode;
    Result<void> encode(const LogMel& mel, int audioContext) override;
    Result<void> decode(const std::vector<std::vector<int>>& beamTokens, std::vector<float>& logits) override;
    Result<ForcedPass> forcedPass(const ForcedPassRequest& request) override;
    void reorderBeams(const std::vector<int>& sourceBeam) override { m_inner->reorderBeams(sourceBeam); }
    void resetDecoder() override { m_inner->resetDecoder(); }
    void setSelfAttentionCache(bool enabled) override { m_inner->setSelfAttentionCache(enabled); }
    void setCrossAttentionCache(bool enabled) override { m_inner->setCrossAttentionCache(enabled); }
    bool selfAttentionCache() const override { return m_inner->selfAttentionCache(); }
    bool crossAttentionCache() const override { return m_inner->crossAttentionCache(); }
    void setStepGraphs(bool enabled) override { m_inner->setStepGraphs(enabled); }
    bool stepGraphs() const override { return m_inner->stepGraphs(); }
    KvCacheStats cacheStats() const override { return m_inner->cacheStats(); }
    SessionTimings timings() const override { return m_inner->timings(); }
    std::vector<float> encoderOutput() const override { return m_inner->encoderOutput(); }
    int audioContext() const override { return m_inner->audioContext(); }
    const WhisperModel& model() const override { return m_inner->model(); }

    // Brings the switches to the state SessionControls asks for; true when one changed.
    // (encode() and decode() call it first; call it directly to apply requests while idle.)
    bool applyRequestedSwitches();

    // The requests this session reads; hand them to the threads that steer it.
    const std::shared_ptr<SessionControls>& controls() const { return m_controls; }
    int maxBeams() const { return m_maxBeams; }
    const SessionCounters& counters() const { return m_counters; }
    void resetCounters() { m_counters = {}; }

    // Called on the session's thread after a decoder step when `interval` has passed since the
    // last call (periodic measurements while a window decodes).
    void setObserver(std::function<void()> observer, std::chrono::milliseconds interval);

private:
    void observe();

    std::unique_ptr<InferenceSession> m_inner;
    std::shared_ptr<SessionControls> m_controls;
    int m_maxBeams = 1;
    SessionCounters m_counters;
    std::function<void()> m_observer;
    std::chrono::milliseconds m_interval{250};
    std::chrono::steady_clock::time_point m_lastObserved{};
};

} // namespace hearsay
