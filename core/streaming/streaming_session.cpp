// The streaming worker loop (see streaming_session.h).
#include "core/streaming/streaming_session.h"
#include "core/streaming/commit_policy.h"
#include "core/streaming/window_policy.h"

#include "core/decoding/fallback_policy.h"
#include "core/decoding/initial_tokens.h"
#include "core/decoding/repetition_detector.h"
#include "core/decoding/temperature_fallback.h"
#include "core/decoding/word_timestamps.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hearsay {
namespace {

constexpr uint64_t kRate = kStreamingRate;
constexpr double kWhisperWindowSeconds = 30.0;

uint64_t alignDown(uint64_t sample) { return sample / kHopLength * kHopLength; }
uint64_t samplesOf(double seconds) { return uint64_t(std::llround(std::max(0.0, seconds) * double(kRate))); }

} // namespace

LatencySummary summariseLatencies(std::vector<double> values) {
    LatencySummary s;
    s.count = int(values.size());
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    auto quantile = [&](double q) {
        const double at = q * double(values.size() - 1);
        const size_t lo = size_t(std::floor(at)), hi = std::min(values.size() - 1, lo + 1);
        return values[lo] + (values[hi] - values[lo]) * (at - double(lo));
    };
    s.median = quantile(0.5);
    s.p90 = quantile(0.9);
    s.max = values.back();
    return s;
}

Result<std::unique_ptr<StreamingSession>> StreamingSession::create(Engine engine, AudioSource& source, StreamingOptions options,
                                                                   StreamingCallbacks callbacks,
                                                                   std::shared_ptr<SessionControls> controls) {
    if (auto ok = options.validate(); !ok) return ok.error();
    auto vad = VoiceActivityDetector::create(options.vad);
    if (!vad) return vad.error();
    std::vector<int> vocabulary;
    if (const std::string text = stripWhitespace(options.vocabulary); !text.empty()) {
        // The vocabulary may take half of the prompt's room; the committed context keeps the rest.
        vocabulary = engine.tokenizer().encode(" " + text);
        const size_t room = promptCapacity(engine.model().config().nTextCtx) / 2;
        if (vocabulary.size() > room) {
            return makeError("the vocabulary is " + std::to_string(vocabulary.size()) + " tokens long; at most " +
                             std::to_string(room) + " fit in the decoder's prompt");
        }
    }
    if (!controls) controls = std::make_shared<SessionControls>();
    return std::unique_ptr<StreamingSession>(new StreamingSession(std::move(engine), source, std::move(options), std::move(callbacks),
                                                                  std::move(controls), std::move(vad).value(),
                                                                  std::move(vocabulary)));
}

StreamingSession::StreamingSession(Engine engine, AudioSource& source, StreamingOptions options, StreamingCallbacks callbacks,
                                   std::shared_ptr<SessionControls> controls, VoiceActivityDetector vad,
                                   std::vector<int> vocabulary)
    : m_engine(std::move(engine)), m_source(source), m_options(std::move(options)), m_callbacks(std::move(callbacks)),
      m_controls(std::move(controls)), m_vad(std::move(vad)), m_mel(m_engine.model().config().nMels),
      m_agreement(m_engine.tokenizer().special().timestampBegin,
                  [tokenizer = m_engine.sharedTokenizer()](int token) { return startsWord(*tokenizer, token); }),
      m_vocabulary(std::move(vocabulary)) {}

std::vector<int> StreamingSession::prompt() const {
    if (m_vocabulary.empty()) return m_context;  // the decoder keeps the most recent tokens that fit
    const size_t room = promptCapacity(m_engine.model().config().nTextCtx);
    std::vector<int> out = m_vocabulary;
    const size_t context = std::min(m_context.size(), room > out.size() ? room - out.size() : 0);
    out.insert(out.end(), m_context.end() - std::ptrdiff_t(context), m_context.end());
    return out;
}

void StreamingSession::requestStop() {
    m_stopRequested.store(true);
    m_source.stop();
}

double StreamingSession::nowSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_epoch).count();
}

StreamingSummary StreamingSession::run() {
    m_epoch = std::chrono::steady_clock::now();
    m_summary = {};
    m_language = m_options.decoding.language;
    auto fail = [&](const std::string& message) {
        m_summary.error = message;
        m_source.stop();
    };

    SessionOptions sessionOptions;
    sessionOptions.maxBeams = std::max(1, m_options.decoding.beamSize);
    auto session = m_engine.createSession(sessionOptions, m_controls);
    if (!session) {
        fail(session.message());
        return m_summary;
    }
    m_session = std::move(session).value();
    if (auto started = m_source.start(); !started) {
        fail(started.message());
        return m_summary;
    }

    const uint64_t stepSamples = std::max<uint64_t>(kHopLength, alignDown(samplesOf(m_options.stepSeconds)));
    // Live, a step also runs early when an utterance has ended, so that its text is final as soon
    // as the detector decides (in lockstep, steps stay one per stepSeconds of audio).
    auto utteranceEndWaits = [&] {
        return !m_options.lockstep && !m_utteranceEnds.empty() && alignDown(m_samplesRead) > m_processed;
    };
    while (m_summary.error.empty()) {
        if (m_stopRequested.load()) m_source.stop();
        const uint64_t target = m_processed + stepSamples;
        if (m_samplesRead < target && !utteranceEndWaits()) {
            const WaitResult waited = m_source.waitForData(std::chrono::milliseconds(50), size_t(target - m_samplesRead));
            if (auto ok = readAvailable(m_options.lockstep ? target : std::numeric_limits<uint64_t>::max()); !ok) {
                fail(ok.message());
                break;
            }
            if (m_samplesRead < target && !utteranceEndWaits()) {
                if (waited == WaitResult::Ended || m_source.atEnd()) break;
                continue;
            }
        }
        // No backlog: all the audio that has arrived goes into this step (one step's worth in
        // lockstep); a window never grows past what Whisper takes.
        uint64_t end = m_options.lockstep ? target : alignDown(m_samplesRead);
        end = std::min(end, m_windowStart + alignDown(samplesOf(m_options.maxWindowSeconds + m_options.stepSeconds)));
        if (auto ok = step(std::max(end, m_processed + kHopLength), false); !ok) fail(ok.message());
    }

    // Drain: everything captured is read and transcribed, everything tentative committed.
    if (m_summary.error.empty()) {
        while (!m_source.atEnd()) {
            m_source.waitForData(std::chrono::milliseconds(50));
            if (auto ok = readAvailable(std::numeric_limits<uint64_t>::max()); !ok) {
                fail(ok.message());
                break;
            }
        }
        std::vector<VadEvent> events;
        m_vad.finish(events);
        for (const VadEvent& e : events) {
            if (e.kind == VadEvent::Kind::SpeechEnd) {
                m_utteranceEnds.push_back(uint64_t(std::max<int64_t>(0, e.sample)));
                m_speechOpen = false;
            }
        }
        // Until every sample is processed and every utterance end handled (the detector's last
        // one may come after the last step).
        while (m_summary.error.empty() && (m_processed < m_samplesRead || !m_utteranceEnds.empty())) {
            const uint64_t end = std::min(m_samplesRead, m_windowStart + alignDown(samplesOf(m_options.maxWindowSeconds)));
            if (auto ok = step(std::max(end, std::min(m_samplesRead, m_processed + 1)), true); !ok) fail(ok.message());
        }
        commitTentative(m_samplesRead, true);
        closeUtteranceLatency();
    }
    const SourceStatus status = m_source.status();
    if (m_summary.error.empty() && status.state == SourceState::Failed) m_summary.error = status.message;
    const SourceCounters counters = m_source.counters();
    m_summary.samplesRead = m_samplesRead;
    m_summary.audioSeconds = double(m_samplesRead) / double(kRate);
    m_summary.droppedSamples = counters.droppedSamples;
    m_summary.overflowEvents = counters.overflowEvents;
    m_summary.realTimeFactor = m_summary.audioSeconds > 0.0 ? m_stepTotalMs / 1000.0 / m_summary.audioSeconds : 0.0;
    m_summary.tentativeLatency = summariseLatencies(m_tentativeLatencies);
    m_summary.commitLatency = summariseLatencies(m_commitLatencies);
    m_summary.finalLatency = summariseLatencies(m_finalLatencies);
    m_summary.language = m_language;
    return m_summary;
}

Result<void> StreamingSession::readAvailable(uint64_t limit) {
    std::vector<float> block(4096);
    std::vector<VadEvent> events;
    while (m_samplesRead < limit) {
        const size_t want = size_t(std::min<uint64_t>(block.size(), limit - m_samplesRead));
        const size_t got = m_source.read(std::span<float>(block.data(), want));
        if (got == 0) break;
        m_mel.append(block.data(), got);
        if (m_options.useVad) m_vad.feed(std::span<const float>(block.data(), got), events);
        m_samplesRead += got;
    }
    for (const VadEvent& e : events) {
        if (e.kind == VadEvent::Kind::SpeechStart) {
            m_speechOpen = true;
        } else {
            m_speechOpen = false;
            m_utteranceEnds.push_back(uint64_t(std::max<int64_t>(0, e.sample)));
        }
    }
    return {};
}

Result<void> StreamingSession::step(uint64_t end, bool draining) {
    const auto started = std::chrono::steady_clock::now();
    StreamingStep record;
    record.index = uint64_t(m_summary.steps);
    record.streamSeconds = double(end) / double(kRate);
    const uint64_t minWindow = samplesOf(m_options.minWindowSeconds);

    // Utterances that ended: decode up to the end of the speech and commit everything. The next
    // window starts at the utterance's end, its text the prompt (contextSilenceSeconds 0, the
    // default), or the utterance's audio and tokens stay in the window (forced as the prefix) as
    // context for the next one until a pause that long.
    while (!m_utteranceEnds.empty() && m_utteranceEnds.front() <= end) {
        // The detector decides a speech end only after a pause (minSilenceMs), so an earlier step
        // (a late one, or one that took a burst of captured audio at once) may already have
        // decoded the window past it and committed text from that audio. The last decode of the
        // utterance then ends where that window ended, not at the speech end: a shorter window
        // would drop audio from under its committed prefix (Whisper decodes it again, garbled).
        // The next window still starts at the speech end unless committed words reach past it:
        // then it would hold committed audio again.
        const uint64_t e = guardedWindowEnd(std::max(std::min(alignDown(m_utteranceEnds.front()), end), m_decodedEnd));
        const uint64_t speechEnd = std::min(alignDown(m_utteranceEnds.front()), e);
        m_utteranceEnds.erase(m_utteranceEnds.begin());
        m_speechEnd = speechEnd;
        auto finished = finishUtterance(e, record);
        m_speechEnd = 0;
        if (!finished) return finished;
        ++m_summary.utterances;
        closeUtteranceLatency();
        m_lastSpeechEnd = std::max(m_lastSpeechEnd, e);
        // Everything of the utterance is committed: the next window starts where its audio ends,
        // at e, or (with word timings) before it where a late step decoded past the speech's end
        // and the committed words end earlier (see emitCommitted).
        if (m_options.contextSilenceSeconds <= 0.0 && m_agreement.tentative().empty()) {
            const uint64_t next = m_options.wordTimings ? std::max(speechEnd, m_committedAudioEnd) : e;
            startNewWindow(std::clamp(next, m_windowStart, e));
        }
    }

    const bool speech = !m_options.useVad || m_speechOpen || (draining && !m_agreement.tentative().empty());
    if (speech && end >= m_windowStart + std::max<uint64_t>(minWindow, kHopLength)) {
        end = guardedWindowEnd(end);
        auto h = decodeWindow(end, record);
        if (!h) return h.error();
        acceptHypothesis(h.value(), end, draining);
        maybeTrim(end);
    } else if (!speech && m_agreement.tentative().empty()) {
        // Silence: nothing to decode. After a long pause the window starts afresh, keeping a
        // little audio for the detector's late start.
        const uint64_t keep = samplesOf(m_options.silenceKeepSeconds);
        const bool pause = end > m_lastSpeechEnd + samplesOf(m_options.contextSilenceSeconds);
        if (m_agreement.committedInWindow().empty() || pause) {
            // The audio kept is never audio whose text is committed (a short contextSilenceSeconds
            // ends the context before the kept second has passed).
            if (end > m_windowStart + keep) startNewWindow(std::max(end - keep, std::min(m_committedAudioEnd, end)));
        }
        if (m_options.showTentative && m_callbacks.tentative && record.index > 0) m_callbacks.tentative(TentativeText{});
    }

    // The step's figures.
    const double advanced = double(end - m_processed) / double(kRate);
    m_processed = std::max(m_processed, end);
    m_mel.discardBefore(size_t(m_windowStart / kHopLength));
    m_summary.samplesProcessed = m_processed;
    record.stepMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    m_stepTotalMs += record.stepMs;
    record.realTimeFactor = advanced > 0.0 ? record.stepMs / 1000.0 / advanced : 0.0;
    record.behindSeconds = double(m_samplesRead > m_processed ? m_samplesRead - m_processed : 0) / double(kRate);
    record.cache = m_session->cacheStats();
    record.selfCache = m_session->selfAttentionCache();
    record.crossCache = m_session->crossAttentionCache();
    record.msPerToken = record.tokens > 0 ? record.decodeMs / record.tokens : 0.0;
    record.tokensPerSecond = record.decodeMs > 0.0 ? record.tokens * 1000.0 / record.decodeMs : 0.0;
    ++m_summary.steps;
    if (record.decoded) ++m_summary.decodedSteps;
    if (m_callbacks.step) m_callbacks.step(record);
    return {};
}

Result<void> StreamingSession::finishUtterance(uint64_t e, StreamingStep& record) {
    const uint64_t minWindow = samplesOf(m_options.minWindowSeconds);
    const int timestampBegin = m_engine.tokenizer().special().timestampBegin;
    // Whisper may end a hypothesis with a segment it opened and left empty (two timestamps at its
    // end) when it takes the audio after them for a sentence cut off: as OpenAI's transcribe()
    // seeks to that timestamp and decodes again, the audio from there to the utterance's end is
    // decoded as a window of its own, else it would be left out (a few passes at most).
    constexpr int kMaxPasses = 3;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        std::optional<Hypothesis> h;
        if (e > m_decodedEnd && e > m_windowStart + minWindow) {
            auto decoded = decodeWindow(e, record);
            if (!decoded) return decoded.error();
            h = std::move(decoded).value();
        } else if (m_agreement.tentative().empty()) {
            return {};
        }
        // Nothing new since the last decode (or too little audio): its tentative text is the rest.
        const std::vector<int>& tokens = h ? h->tokens : m_agreement.tentative();
        uint64_t upTo = e;
        const size_t n = tokens.size();
        if (pass + 1 < kMaxPasses && n >= 2 && tokens[n - 1] >= timestampBegin && tokens[n - 2] >= timestampBegin) {
            const uint64_t open = m_windowStart + uint64_t(tokens[n - 1] - timestampBegin) * kTimestampSamples;
            if (open > m_windowStart && open + minWindow < e) upTo = open;
        }
        if (h) {
            acceptHypothesis(*h, upTo, true);
        } else {
            commitTentative(upTo, true);
            emitTentative(upTo);
        }
        if (upTo == e) return {};
        startNewWindow(upTo);  // the utterance's text so far becomes the prompt of its tail
    }
    return {};
}

Result<StreamingSession::Hypothesis> StreamingSession::decodeWindow(uint64_t end, StreamingStep& record) {
    const Tokenizer& tokenizer = m_engine.tokenizer();
    const size_t firstFrame = size_t(m_windowStart / kHopLength);
    const size_t frames = size_t(std::min<uint64_t>((end - m_windowStart) / kHopLength, kChunkFrames));
    MelWindowOptions melOptions;
    melOptions.padding = m_options.melPadding;
    if (m_options.melPadding == MelPadding::Zero) melOptions.clampMax = m_mel.maxLog10();
    const LogMel mel = m_mel.window(firstFrame, frames, melOptions);
    if (mel.frames == 0) return makeError("internal: no log-mel for the window at sample " + std::to_string(m_windowStart));
    // The reduced audio context: the window's frames plus the padding, 2 frames a position.
    int audioContext = 0;
    if (m_options.audioContextPaddingSeconds >= 0.0) {
        const int full = m_engine.model().config().nAudioCtx;
        const double wanted = double(frames) + m_options.audioContextPaddingSeconds * double(kRate) / double(kHopLength);
        audioContext = std::clamp(int(std::ceil(wanted / 2.0)), 1, full);
    }
    if (auto ok = m_session->encode(mel, audioContext); !ok) return ok.error();
    record.audioContext = m_session->audioContext();

    DecodingOptions d = m_options.decoding;
    d.language = m_language;
    d.prompt = prompt();
    d.prefix = m_agreement.committedInWindow();
    d.prefixIsSampled = true;
    d.sampleLen = m_options.maxSampledTokens;
    auto result = decodeWithFallback(*m_session, tokenizer, d, m_options.temperatures, m_options.thresholds);
    if (!result) return result.error();
    if (m_language.empty() && tokenizer.isMultilingual()) m_language = result->language;

    Hypothesis h;
    h.tokens = result->tokens;
    if (m_options.cutRepetitionLoops && result->endedByLimit) {
        const RepetitionLoop loop = findTrailingLoop(h.tokens, tokenizer.special().timestampBegin);
        if (loop.repeats > 0) h.tokens.resize(loop.keepUntil);
    }
    h.silent = isSilentWindow(result.value(), m_options.thresholds);
    if (h.silent) h.tokens.clear();
    if (m_options.wordTimings && !h.silent) {
        // The words of the window's text (the committed prefix and this hypothesis), while the
        // session still holds its encoding: each word's own time for the latencies and events.
        // A silent window keeps the last alignment (its tentative text may still be committed).
        std::vector<int> window = m_agreement.committedInWindow();
        window.insert(window.end(), h.tokens.begin(), h.tokens.end());
        std::vector<int> text;
        for (int t : window)
            if (t < tokenizer.special().eot) text.push_back(t);
        const std::string language = tokenizer.isMultilingual() ? m_language : std::string("en");
        auto words = alignText(*m_session, tokenizer, language, d.task, text, int(frames / 2));
        if (!words) return words.error();
        mergePunctuations(words.value(), kPrependPunctuations, kAppendPunctuations);
        m_tokenTimes.setAligned(window, words.value(), tokenizer.special().timestampBegin);
    }

    const SessionTimings t = m_session->timings();
    m_decodedEnd = std::max(m_decodedEnd, end);
    record.decoded = true;
    record.windowSeconds = double(end - m_windowStart) / double(kRate);
    record.encoderMs += t.encoderMs;
    record.decodeMs += t.decodeMs;
    record.tokens += result->steps;
    return h;
}

void StreamingSession::acceptHypothesis(const Hypothesis& h, uint64_t end, bool endOfUtterance) {
    const int timestampBegin = m_engine.tokenizer().special().timestampBegin;
    auto textOf = [&](const std::vector<int>& tokens) {
        std::vector<int> out;
        for (int t : tokens)
            if (t < timestampBegin) out.push_back(t);
        return out;
    };
    // When each text token of the hypothesis was first shown: as before where it repeats the
    // previous hypothesis from its start, now for the rest.
    const std::vector<int> before = textOf(m_agreement.tentative());
    const std::vector<int> now = textOf(h.tokens);
    std::vector<double> shownAt(now.size(), nowSeconds());
    for (size_t i = 0; i < now.size() && i < before.size() && i < m_tentativeShownAt.size() && now[i] == before[i]; ++i) {
        shownAt[i] = m_tentativeShownAt[i];
    }

    const size_t committedBefore = m_agreement.committedInWindow().size();
    const bool enoughAudio = end >= m_windowStart + samplesOf(m_options.minCommitSeconds);
    std::vector<int> committed;
    switch (m_options.commit) {
    case CommitPolicy::LocalAgreement: committed = m_agreement.update(h.tokens, enoughAudio).committed; break;
    case CommitPolicy::UtteranceEnd: m_agreement.update(h.tokens, false); break;
    case CommitPolicy::AlignAtt:
        m_agreement.update(h.tokens, false);
        if (enoughAudio) committed = m_agreement.commitThrough(committedBefore + alignAttStablePrefix(end));
        break;
    }
    const size_t committedText = textOf(committed).size();
    if (!committed.empty()) {
        emitCommitted(committedBefore, committed.size(),
                      std::vector<double>(shownAt.begin(), shownAt.begin() + std::ptrdiff_t(committedText)), end, false);
    }
    m_tentativeShownAt.assign(shownAt.begin() + std::ptrdiff_t(committedText), shownAt.end());
    if (endOfUtterance) commitTentative(end, true);
    emitTentative(end);
}

void StreamingSession::commitTentative(uint64_t windowEnd, bool endOfUtterance) {
    if (!m_agreement.tentative().empty()) {
        const size_t first = m_agreement.committedInWindow().size();
        const std::vector<int> rest = m_agreement.commitAll();
        emitCommitted(first, rest.size(), m_tentativeShownAt, windowEnd, endOfUtterance);
    }
    m_tentativeShownAt.clear();
}

size_t StreamingSession::alignAttStablePrefix(uint64_t windowEnd) const {
    const Tokenizer& tokenizer = m_engine.tokenizer();
    std::vector<int> window = m_agreement.committedInWindow();
    const size_t first = window.size();
    window.insert(window.end(), m_agreement.tentative().begin(), m_agreement.tentative().end());
    const double windowSeconds = double(windowEnd - m_windowStart) / double(kRate);
    return stableWordPrefix(window, m_tokenTimes.times(tokenizer, window, windowSeconds), first,
                            windowSeconds - m_options.alignAttGuardSeconds, tokenizer.special().timestampBegin,
                            [&](int token) { return startsWord(tokenizer, token); });
}

void StreamingSession::emitCommitted(size_t first, size_t count, const std::vector<double>& shownAt, uint64_t windowEnd,
                                     bool endOfUtterance) {
    const Tokenizer& tokenizer = m_engine.tokenizer();
    const int timestampBegin = tokenizer.special().timestampBegin;
    std::vector<int> window = m_agreement.committedInWindow();
    window.insert(window.end(), m_agreement.tentative().begin(), m_agreement.tentative().end());
    const double origin = double(m_windowStart) / double(kRate);
    const auto times = m_tokenTimes.times(tokenizer, window, double(windowEnd - m_windowStart) / double(kRate));

    CommittedText out;
    out.endOfUtterance = endOfUtterance;
    double wordEnd = -1.0;
    size_t textIndex = 0;
    bool haveTimes = false;
    auto closeWord = [&](double shown) {
        if (wordEnd < 0.0) return;
        const auto captured = m_source.timeOfSample(uint64_t(std::llround(wordEnd * double(kRate))));
        if (captured) {
            const double capturedAt = std::chrono::duration<double>(*captured - m_epoch).count();
            const double tentative = std::max(0.0, shown - capturedAt);
            const double committed = std::max(0.0, nowSeconds() - capturedAt);
            out.tentativeLatency.push_back(tentative);
            out.commitLatency.push_back(committed);
            out.latencyWordEnds.push_back(wordEnd);
            m_tentativeLatencies.push_back(tentative);
            m_commitLatencies.push_back(committed);
            m_lastWordCommitLatency = committed;
        }
        wordEnd = -1.0;
    };
    double lastShown = nowSeconds();
    int lastWord = -1;
    std::vector<std::vector<int>> wordTokens;  // of each entry of out.words
    for (size_t i = first; i < first + count && i < window.size(); ++i) {
        const int token = window[i];
        if (token >= timestampBegin) continue;
        // Estimated times are shared out over a segment that may still grow, so a piece can be
        // estimated to start before the previous piece's estimated end: it starts at that end.
        const double start = std::max(origin + times[i].start, m_lastCommittedEnd);
        const double end = std::max(origin + times[i].end, start);
        // A word of the alignment: its tokens in this piece make one word, timed as aligned.
        if (times[i].word >= 0) {
            if (times[i].word != lastWord) {
                out.words.push_back({"", start, end, times[i].probability});
                wordTokens.emplace_back();
                lastWord = times[i].word;
            }
            wordTokens.back().push_back(token);
        }
        if (!haveTimes) {
            out.start = start;
            haveTimes = true;
        }
        out.end = end;
        if (startsWord(tokenizer, token)) closeWord(lastShown);
        lastShown = textIndex < shownAt.size() ? shownAt[textIndex] : nowSeconds();
        wordEnd = end;
        out.tokens.push_back(token);
        ++textIndex;
    }
    closeWord(lastShown);
    // The audio of the committed text: up to the estimated end of the last committed word; all of
    // the window at the end of an utterance (or Stop). Where a late step decoded the utterance's
    // window past the detector's end of speech, the audio after both that end and the last
    // committed word's aligned end is not the utterance's: the next utterance may begin there
    // (a pause just over the detector's minimum), and it belongs to the next window, else the
    // start of its first word would be cut off.
    uint64_t audioEnd = haveTimes ? samplesOf(out.end) : 0;
    if (endOfUtterance) {
        const bool aligned = m_options.wordTimings && !out.words.empty();
        audioEnd = aligned && m_speechEnd > 0 ? std::max(audioEnd, m_speechEnd) : windowEnd;
    }
    m_committedAudioEnd = std::max(m_committedAudioEnd, std::min(windowEnd, (audioEnd + kHopLength - 1) / kHopLength * kHopLength));
    if (out.tokens.empty()) return;
    m_lastCommittedEnd = out.end;
    out.text = tokenizer.decode(out.tokens);
    for (size_t w = 0; w < out.words.size(); ++w) out.words[w].word = tokenizer.decode(wordTokens[w]);
    m_summary.text += out.text;
    if (m_callbacks.committed) m_callbacks.committed(out);
}

void StreamingSession::emitTentative(uint64_t windowEnd) {
    if (!m_options.showTentative || !m_callbacks.tentative) return;
    const Tokenizer& tokenizer = m_engine.tokenizer();
    const int timestampBegin = tokenizer.special().timestampBegin;
    std::vector<int> window = m_agreement.committedInWindow();
    const size_t first = window.size();
    window.insert(window.end(), m_agreement.tentative().begin(), m_agreement.tentative().end());
    const auto times = m_tokenTimes.times(tokenizer, window, double(windowEnd - m_windowStart) / double(kRate));
    const double origin = double(m_windowStart) / double(kRate);
    TentativeText t;
    for (size_t i = first; i < window.size(); ++i) {
        if (window[i] >= timestampBegin) continue;
        if (t.tokens.empty()) t.start = origin + times[i].start;
        t.end = origin + times[i].end;
        t.tokens.push_back(window[i]);
    }
    t.text = tokenizer.decode(t.tokens);
    m_callbacks.tentative(t);
}

void StreamingSession::maybeTrim(uint64_t end) {
    const WindowCut cut = planWindowCut(m_agreement, m_windowStart, end, m_options);
    const int timestampBegin = m_engine.tokenizer().special().timestampBegin;
    auto trim = [&](const LocalAgreement::Boundary& b) {
        const auto& committed = m_agreement.committedInWindow();
        for (size_t i = 0; i < b.index && i < committed.size(); ++i)
            if (committed[i] < timestampBegin) m_context.push_back(committed[i]);
        m_windowStart += uint64_t(b.steps) * kTimestampSamples;
        m_agreement.trimTo(b);
        m_tokenTimes.clear();
    };
    switch (cut.kind) {
    case WindowCut::Kind::Keep: return;
    case WindowCut::Kind::AtCommittedBoundary: trim(cut.boundary); return;
    case WindowCut::Kind::CommitThroughBoundary: {
        const size_t first = m_agreement.committedInWindow().size();
        const std::vector<int> forced = m_agreement.commitThrough(cut.boundary.index);
        size_t forcedText = 0;
        for (int t : forced) forcedText += t < timestampBegin ? 1 : 0;
        std::vector<double> shown(m_tentativeShownAt.begin(), m_tentativeShownAt.begin() + std::ptrdiff_t(std::min(forcedText, m_tentativeShownAt.size())));
        emitCommitted(first, forced.size(), shown, end, false);
        m_tentativeShownAt.erase(m_tentativeShownAt.begin(), m_tentativeShownAt.begin() + std::ptrdiff_t(shown.size()));
        trim(cut.boundary);
        return;
    }
    case WindowCut::Kind::CommitAll:
        commitTentative(end, false);
        startNewWindow(end);
        return;
    }
}

void StreamingSession::startNewWindow(uint64_t at) {
    const int timestampBegin = m_engine.tokenizer().special().timestampBegin;
    for (int t : m_agreement.committedInWindow())
        if (t < timestampBegin) m_context.push_back(t);
    m_agreement.reset();
    m_tentativeShownAt.clear();
    m_tokenTimes.clear();
    m_windowStart = std::max(m_windowStart, alignDown(guardedWindowStart(at)));
    m_decodedEnd = m_windowStart;
}

void StreamingSession::closeUtteranceLatency() {
    if (m_lastWordCommitLatency) m_finalLatencies.push_back(*m_lastWordCommitLatency);
    m_lastWordCommitLatency.reset();
}

uint64_t StreamingSession::guardedWindowEnd(uint64_t end) {
    if (end >= m_committedAudioEnd) return end;
    ++m_summary.recommitsPrevented;
    return std::min(m_committedAudioEnd, m_samplesRead);
}

uint64_t StreamingSession::guardedWindowStart(uint64_t at) {
    if (at >= m_committedAudioEnd) return at;
    ++m_summary.recommitsPrevented;
    return m_committedAudioEnd;
}

} // namespace hearsay
