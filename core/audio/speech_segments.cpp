// Speech segmentation with the silero-vad package's rules (utils_vad.py,
// get_speech_timestamps_from_probs, 6.2.3), written from its semantics: the same comparisons in
// double precision, the same sample arithmetic, the same tie-breaking.
#include "core/audio/speech_segments.h"

#include <algorithm>
#include <cmath>

namespace hearsay {
namespace {

// Milliseconds to samples as the package computes them: sampling_rate * ms / 1000.
double msToSamples(double ms) { return kVadSampleRate * ms / 1000.0; }

// Python's floor division of a non-negative gap by 2.
int64_t halfGap(int64_t gap) { return gap >= 0 ? gap / 2 : -((-gap + 1) / 2); }

// int(max(0, x)) and int(min(total, x)) on a float x, as the package pads.
int64_t truncToSample(double x) { return int64_t(x); }

} // namespace

SpeechHysteresis::SpeechHysteresis(const VadOptions& options)
    : m_threshold(options.threshold),
      m_negThreshold(options.effectiveNegativeThreshold()),
      m_minSpeech(msToSamples(options.minSpeechMs)),
      m_minSilence(msToSamples(options.minSilenceMs)),
      m_maxSpeech(kVadSampleRate * options.maxSpeechSeconds - kVadChunkSamples - 2.0 * msToSamples(options.speechPadMs)),
      m_minSilenceAtMax(msToSamples(options.minSilenceAtMaxSpeechMs)),
      m_cutAtLongest(options.cutAtLongestSilence) {}

void SpeechHysteresis::reset() {
    m_nextChunk = 0;
    m_triggered = false;
    m_start = m_tempEnd = m_prevEnd = m_nextStart = 0;
    m_possibleEnds.clear();
}

bool SpeechHysteresis::openSegmentKept() const {
    if (!m_triggered) return false;
    // The segment's end is at least the pending silence start, or else the next chunk's start
    // (a later silence, or the end of the stream, which lies past this full chunk). A cut keeps
    // the segment whatever its length.
    const int64_t earliestEnd = m_tempEnd ? m_tempEnd : nextChunkStart();
    return double(earliestEnd - m_start) > m_minSpeech;
}

void SpeechHysteresis::push(double p, std::vector<Raw>& closed) {
    const int64_t cur = nextChunkStart();
    ++m_nextChunk;
    const bool speech = p >= m_threshold;

    // Speech again after a pause: remember the pause as a cut point if long enough.
    if (speech && m_tempEnd) {
        const int64_t pause = cur - m_tempEnd;
        if (double(pause) > m_minSilenceAtMax) m_possibleEnds.push_back({m_tempEnd, pause});
        m_tempEnd = 0;
        if (m_nextStart < m_prevEnd) m_nextStart = cur;
    }

    if (speech && !m_triggered) {
        m_triggered = true;
        m_start = cur;
        return;
    }

    // An over-long segment: cut it.
    if (m_triggered && double(cur - m_start) > m_maxSpeech) {
        if (m_cutAtLongest && !m_possibleEnds.empty()) {
            Pause longest = m_possibleEnds.front();  // the first of equal lengths, as Python's max()
            for (const Pause& pause : m_possibleEnds) {
                if (pause.length > longest.length) longest = pause;
            }
            closed.push_back({m_start, longest.start});
            m_nextStart = longest.start + longest.length;
            if (m_nextStart < longest.start + cur) {
                m_start = m_nextStart;  // the speech after that pause continues the next segment
            } else {
                m_triggered = false;
            }
            m_prevEnd = m_nextStart = m_tempEnd = 0;
            m_possibleEnds.clear();
        } else if (m_prevEnd) {
            closed.push_back({m_start, m_prevEnd});
            if (m_nextStart < m_prevEnd) {
                m_triggered = false;
            } else {
                m_start = m_nextStart;
            }
            m_prevEnd = m_nextStart = m_tempEnd = 0;
            m_possibleEnds.clear();
        } else {
            closed.push_back({m_start, cur});
            m_prevEnd = m_nextStart = m_tempEnd = 0;
            m_triggered = false;
            m_possibleEnds.clear();
            return;
        }
    }

    // Silence inside a segment: end it once the silence is long enough.
    if (p < m_negThreshold && m_triggered) {
        if (!m_tempEnd) m_tempEnd = cur;
        const int64_t silence = cur - m_tempEnd;
        if (!m_cutAtLongest && double(silence) > m_minSilenceAtMax) m_prevEnd = m_tempEnd;
        if (double(silence) < m_minSilence) return;
        if (double(m_tempEnd - m_start) > m_minSpeech) closed.push_back({m_start, m_tempEnd});
        m_prevEnd = m_nextStart = m_tempEnd = 0;
        m_triggered = false;
        m_possibleEnds.clear();
    }
}

void SpeechHysteresis::finish(int64_t totalSamples, std::vector<Raw>& closed) {
    if (m_triggered && double(totalSamples - m_start) > m_minSpeech) closed.push_back({m_start, totalSamples});
    m_triggered = false;
    m_tempEnd = m_prevEnd = m_nextStart = 0;
    m_possibleEnds.clear();
}

std::vector<SpeechSegment> speechSegmentsFromProbabilities(std::span<const float> probabilities, int64_t totalSamples,
                                                           const VadOptions& options) {
    SpeechHysteresis hysteresis(options);
    std::vector<SpeechHysteresis::Raw> raw;
    for (float p : probabilities) hysteresis.push(double(p), raw);
    hysteresis.finish(totalSamples, raw);

    // Padding: each side by pad, or by half the gap when neighbours are closer than 2 pad.
    const double pad = msToSamples(options.speechPadMs);
    std::vector<SpeechSegment> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) out[i] = {raw[i].start, raw[i].end};
    for (size_t i = 0; i < out.size(); ++i) {
        if (i == 0) out[i].start = truncToSample(std::max(0.0, double(out[i].start) - pad));
        if (i + 1 < out.size()) {
            const int64_t gap = raw[i + 1].start - raw[i].end;
            if (double(gap) < 2.0 * pad) {
                out[i].end += halfGap(gap);
                out[i + 1].start = std::max<int64_t>(0, raw[i + 1].start - halfGap(gap));
            } else {
                out[i].end = truncToSample(std::min(double(totalSamples), double(raw[i].end) + pad));
                out[i + 1].start = truncToSample(std::max(0.0, double(raw[i + 1].start) - pad));
            }
        } else {
            out[i].end = truncToSample(std::min(double(totalSamples), double(raw[i].end) + pad));
        }
    }
    return out;
}

SpeechSegmenter::SpeechSegmenter(const VadOptions& options)
    : m_raw(options), m_pad(msToSamples(options.speechPadMs)) {}

void SpeechSegmenter::reset() {
    m_raw.reset();
    m_closed.clear();
    m_frontStarted = false;
    m_havePrevEnd = false;
    m_prevEnd = 0;
    m_finished = false;
    m_total = 0;
}

void SpeechSegmenter::push(double probability, std::vector<VadEvent>& events) {
    m_raw.push(probability, m_closed);
    emitDecided(events);
}

void SpeechSegmenter::finish(int64_t totalSamples, std::vector<VadEvent>& events, std::optional<double> partialChunkProbability) {
    if (partialChunkProbability) m_raw.push(*partialChunkProbability, m_closed);
    m_raw.finish(totalSamples, m_closed);
    m_finished = true;
    m_total = totalSamples;
    emitDecided(events);
}

// The kept segments in order are m_closed, then the open one once it is certain to be kept. The
// offline padding of a segment depends on its neighbours' raw boundaries: a start on the previous
// segment's raw end (known, it closed first); an end on the next kept segment's raw start when
// that lies within 2 pad. An end is due once that next segment is known, or once no segment can
// start within 2 pad of it any more.
void SpeechSegmenter::emitDecided(std::vector<VadEvent>& events) {
    const int64_t decidedAt = m_finished ? m_total : m_raw.nextChunkStart();
    const bool openKept = !m_finished && m_raw.openSegmentKept();
    for (;;) {
        if (!m_frontStarted) {
            int64_t start = 0;
            if (!m_closed.empty()) {
                start = m_closed.front().start;
            } else if (openKept) {
                start = m_raw.openStart();
            } else {
                return;
            }
            int64_t padded = truncToSample(std::max(0.0, double(start) - m_pad));
            if (m_havePrevEnd) {
                const int64_t gap = start - m_prevEnd;
                if (double(gap) < 2.0 * m_pad) padded = std::max<int64_t>(0, start - halfGap(gap));
            }
            events.push_back({VadEvent::Kind::SpeechStart, padded, decidedAt});
            m_frontStarted = true;
            continue;
        }
        if (m_closed.empty()) return;  // the started segment is still open
        const int64_t end = m_closed.front().end;
        bool haveNext = false;
        int64_t nextStart = 0;
        if (m_closed.size() > 1) {
            haveNext = true;
            nextStart = m_closed[1].start;
        } else if (openKept) {
            haveNext = true;
            nextStart = m_raw.openStart();
        } else if (!m_finished) {
            // Any later segment starts at the open (undecided) one or at a chunk not yet seen.
            const int64_t earliestNext = m_raw.triggered() ? m_raw.openStart() : m_raw.nextChunkStart();
            if (double(earliestNext - end) < 2.0 * m_pad) return;
        }
        int64_t padded = 0;
        if (haveNext && double(nextStart - end) < 2.0 * m_pad) {
            padded = end + halfGap(nextStart - end);
        } else if (m_finished) {
            padded = truncToSample(std::min(double(m_total), double(end) + m_pad));
        } else {
            padded = truncToSample(double(end) + m_pad);  // <= samples seen, so within the stream
        }
        events.push_back({VadEvent::Kind::SpeechEnd, padded, decidedAt});
        m_prevEnd = end;
        m_havePrevEnd = true;
        m_closed.erase(m_closed.begin());
        m_frontStarted = false;
    }
}

} // namespace hearsay
