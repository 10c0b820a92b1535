// Live transcription of an audio source (a microphone, or a file played at real-time pace): the
// worker loop of the streaming policy. Each step (stepSeconds of new audio) the window, the audio
// since the last commit point (≤ 30 s), is encoded once and decoded with the committed text before
// it as the prompt and the window's committed tokens as a forced prefix; LocalAgreement-2 commits
// what two consecutive hypotheses agree on; the voice activity detector skips silence and ends
// utterances (everything tentative is committed when the speaker pauses); long windows are
// trimmed at committed segment boundaries (window_policy.h decides where). Reports through
// callbacks, from the thread that runs it (the GUI turns them into queued signals; the CLI
// prints them).
#pragma once

#include "core/audio/audio_source.h"
#include "core/audio/voice_activity.h"
#include "core/engine/engine.h"
#include "core/streaming/local_agreement.h"
#include "core/streaming/streaming_events.h"
#include "core/streaming/streaming_options.h"
#include "core/streaming/window_token_times.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace hearsay {

struct StreamingCallbacks {
    std::function<void(const TentativeText&)> tentative;  // after every decoded step (empty text: none)
    std::function<void(const CommittedText&)> committed;  // each committed piece, once, in order
    std::function<void(const StreamingStep&)> step;       // every step, decoded or not
};

class StreamingSession {
public:
    // Checks the options and prepares the detector; the engine session is made by run() on the
    // thread that runs it. `controls` (optional) are shared with other threads: Cancel, the cache
    // switches and step graphs, applied at the next decoder step.
    static Result<std::unique_ptr<StreamingSession>> create(Engine engine, AudioSource& source, StreamingOptions options,
                                                            StreamingCallbacks callbacks,
                                                            std::shared_ptr<SessionControls> controls = nullptr);

    // Starts the source and transcribes until it ends (a file's end, a device lost) or
    // requestStop(); then drains: every sample read is processed and everything tentative is
    // committed. Returns the summary; an engine failure ends the run early with `error` set,
    // keeping what was committed. Call once, from the thread that owns the engine.
    StreamingSummary run();

    // Any thread: stop listening, finish the audio already captured, commit, return from run().
    void requestStop();
    // Any thread: the controls of the engine session (cache switches, step graphs, cancel).
    const std::shared_ptr<SessionControls>& controls() const { return m_controls; }

private:
    StreamingSession(Engine engine, AudioSource& source, StreamingOptions options, StreamingCallbacks callbacks,
                     std::shared_ptr<SessionControls> controls, VoiceActivityDetector vad, std::vector<int> vocabulary);

    struct Hypothesis {
        std::vector<int> tokens;  // after the prefix: text and timestamp tokens
        bool silent = false;      // no speech by the no-speech threshold
    };

    Result<void> readAvailable(uint64_t limit);
    Result<void> step(uint64_t end, bool draining);
    Result<Hypothesis> decodeWindow(uint64_t end, StreamingStep& record);
    // An utterance ended at sample e: its last decode (or the last hypothesis, when nothing new
    // arrived) is committed, and audio Whisper left untranscribed before e is decoded on its own.
    Result<void> finishUtterance(uint64_t e, StreamingStep& record);
    void acceptHypothesis(const Hypothesis& h, uint64_t end, bool endOfUtterance);
    // Reports tokens [first, first + count) of committedInWindow() (just committed); shownAt: when
    // each of their text tokens was first shown.
    void emitCommitted(size_t first, size_t count, const std::vector<double>& shownAt, uint64_t windowEnd, bool endOfUtterance);
    void emitTentative(uint64_t windowEnd);
    // Commits everything tentative as one piece (an utterance's end, Stop, a window cut by force).
    void commitTentative(uint64_t windowEnd, bool endOfUtterance);
    // AlignAtt: how many tokens of tentative() form whole words aligned clear of the window's end.
    size_t alignAttStablePrefix(uint64_t windowEnd) const;
    void maybeTrim(uint64_t end);
    void startNewWindow(uint64_t at);
    // An utterance ended (or the stream): the commit latency of its last word is its final latency.
    void closeUtteranceLatency();
    // The guard that keeps committed audio from being decoded and committed again: a window
    // decoded with committed text as its prefix ends no earlier than that text's audio, and a
    // new window starts no earlier. Returns `end` / `at`, moved (and counted) where it had to be.
    uint64_t guardedWindowEnd(uint64_t end);
    uint64_t guardedWindowStart(uint64_t at);
    double nowSeconds() const;
    // The prompt of the next decode: the vocabulary, then as much of the committed context as fits.
    std::vector<int> prompt() const;

    Engine m_engine;
    AudioSource& m_source;
    StreamingOptions m_options;
    StreamingCallbacks m_callbacks;
    std::shared_ptr<SessionControls> m_controls;
    VoiceActivityDetector m_vad;
    std::unique_ptr<ControlledSession> m_session;
    LogMelStream m_mel;
    LocalAgreement m_agreement;
    WindowTokenTimes m_tokenTimes;    // when the window's tokens were spoken (aligned words)
    std::atomic<bool> m_stopRequested{false};

    uint64_t m_samplesRead = 0;       // fed to the mel stream and the VAD
    uint64_t m_processed = 0;         // the end of the last step
    uint64_t m_windowStart = 0;       // sample; a multiple of 160
    uint64_t m_decodedEnd = 0;        // end of the last window decoded since the window started (≥ m_windowStart)
    uint64_t m_committedAudioEnd = 0; // sample: the audio before it has its text committed
    uint64_t m_speechEnd = 0;         // sample: the detector's end of the utterance being finished (0: none)
    double m_lastCommittedEnd = 0.0;  // seconds: the end of the last committed piece (the next starts no earlier)
    bool m_speechOpen = false;        // a speech start without its end yet
    uint64_t m_lastSpeechEnd = 0;     // where the last utterance ended (sample)
    std::vector<uint64_t> m_utteranceEnds;  // speech ends decided, not yet handled
    std::vector<int> m_context;       // committed text tokens before the window (the prompt)
    std::vector<int> m_vocabulary;    // the vocabulary's tokens, at the front of every prompt
    std::vector<double> m_tentativeShownAt;  // wall time each tentative text token was first shown
    std::string m_language;           // detected once (multilingual models without a set language)
    StreamingSummary m_summary;
    std::vector<double> m_tentativeLatencies, m_commitLatencies, m_finalLatencies;
    std::optional<double> m_lastWordCommitLatency;  // of the last word committed in the open utterance
    std::chrono::steady_clock::time_point m_epoch;
    double m_stepTotalMs = 0.0;
};

// Median, 90th percentile and maximum of a list of latencies.
LatencySummary summariseLatencies(std::vector<double> values);

} // namespace hearsay
