// From per-chunk speech probabilities to speech segments, with the silero-vad package's rules
// (its get_speech_timestamps): offline over a whole clip, and streaming, chunk by chunk, with
// events that are emitted once certain and equal the offline segments exactly.
#pragma once

#include "core/audio/vad_options.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hearsay {

// Samples [start, end) at 16 kHz, padded.
struct SpeechSegment {
    int64_t start = 0;
    int64_t end = 0;
    bool operator==(const SpeechSegment&) const = default;
};

struct VadEvent {
    enum class Kind { SpeechStart, SpeechEnd };
    Kind kind = Kind::SpeechStart;
    int64_t sample = 0;     // the padded segment boundary, in samples since the stream began
    int64_t decidedAt = 0;  // end of the last chunk processed when the event became certain (>= sample)
    bool operator==(const VadEvent&) const = default;
};

// The package's per-chunk state machine, causal: hysteresis between the two thresholds, the
// minimum silence that ends a segment, cuts of over-long segments. It yields raw segments
// (unpadded; the padding needs the neighbours), only those the package keeps: longer than the
// minimum speech, or made by a cut.
class SpeechHysteresis {
public:
    struct Raw {
        int64_t start = 0;
        int64_t end = 0;
    };
    explicit SpeechHysteresis(const VadOptions& options);
    void reset();
    // The probability of the next chunk, samples [512 i, 512 i + 512); appends the segments it closes.
    void push(double probability, std::vector<Raw>& closed);
    // End of the stream after `totalSamples`: closes the open segment there (kept if long enough).
    void finish(int64_t totalSamples, std::vector<Raw>& closed);

    bool triggered() const { return m_triggered; }          // inside a segment now
    int64_t openStart() const { return m_start; }            // its raw start (when triggered)
    int64_t pendingSilenceStart() const { return m_tempEnd; } // start of the silence that may end it; 0: none
    int64_t nextChunkStart() const { return m_nextChunk * int64_t(kVadChunkSamples); }
    // Whether the open segment is certain to be kept: its end can no longer fall within the
    // minimum speech duration of its start.
    bool openSegmentKept() const;

private:
    double m_threshold, m_negThreshold;
    double m_minSpeech, m_minSilence, m_maxSpeech, m_minSilenceAtMax;  // samples, as the package computes them
    bool m_cutAtLongest;

    int64_t m_nextChunk = 0;
    bool m_triggered = false;
    int64_t m_start = 0;
    int64_t m_tempEnd = 0;    // the package's temp_end, prev_end, next_start (0: unset)
    int64_t m_prevEnd = 0;
    int64_t m_nextStart = 0;
    struct Pause {
        int64_t start, length;
    };
    std::vector<Pause> m_possibleEnds;  // pauses inside the open segment, candidate cut points
};

// get_speech_timestamps on given probabilities: `probabilities[i]` belongs to samples
// [512 i, 512 i + 512) of a clip of `totalSamples` samples (the last chunk zero-padded).
// `options` must be valid (VadOptions::validate).
std::vector<SpeechSegment> speechSegmentsFromProbabilities(std::span<const float> probabilities, int64_t totalSamples,
                                                           const VadOptions& options);

// The same segments as events, one chunk at a time. A start is emitted once the segment is
// certain to be kept (minSpeechMs after its raw start, at the latest); an end once its padding
// is certain, which with the default options is the chunk that completes minSilenceMs of silence.
class SpeechSegmenter {
public:
    explicit SpeechSegmenter(const VadOptions& options);
    void reset();
    // The probability of the next full 512-sample chunk; appends the events that became certain.
    void push(double probability, std::vector<VadEvent>& events);
    // End of the stream after `totalSamples` samples: closes everything. When the stream ends
    // inside a chunk, that chunk's probability (zero-padded, as the package) comes here, not to
    // push(): a full chunk is what lets push() decide early.
    void finish(int64_t totalSamples, std::vector<VadEvent>& events, std::optional<double> partialChunkProbability = {});
    // Inside a raw (unpadded, undelayed) segment after the last chunk: for a live indicator.
    bool triggered() const { return m_raw.triggered(); }

private:
    void emitDecided(std::vector<VadEvent>& events);

    SpeechHysteresis m_raw;
    double m_pad;                                // samples
    std::vector<SpeechHysteresis::Raw> m_closed; // kept raw segments whose end event is still due
    bool m_frontStarted = false;                 // the start event of the first segment not yet ended is out
    bool m_havePrevEnd = false;                  // a segment ended before: its raw end sets the next start's padding
    int64_t m_prevEnd = 0;
    bool m_finished = false;
    int64_t m_total = 0;                         // total samples, once finished
};

} // namespace hearsay
