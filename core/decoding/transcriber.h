// Long-form transcription of a whole recording, as the reference's transcribe() (OpenAI's, and
// faster-whisper's): one log-mel over the whole recording, clamped against its maximum, sliced
// into 30-second windows advanced by the last complete timestamp pair (seek) and padded with 0.0;
// temperature fallback, silence skipping, conditioning on the previous text, and an optional cut
// of trailing repetition loops. The recording is read twice in blocks (its maximum, then the
// windows), so memory stays bounded for any length.
#pragma once

#include "core/decoding/temperature_fallback.h"
#include "core/decoding/word_timestamps.h"
#include "core/frontend/sample_reader.h"
#include "core/transcript/transcript.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace hearsay {

struct TranscribeOptions {
    DecodingOptions decoding;               // language empty: detected once on the first 30 s
    std::vector<float> temperatures = {0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f};
    FallbackThresholds thresholds;
    bool conditionOnPreviousText = true;    // previous windows' tokens as the prompt
    std::string initialPrompt;              // text prompt for the first window
    bool cutRepetitionLoops = true;         // a window that hit the sample limit in a loop keeps one occurrence
    // Word timestamps (faster-whisper's word_timestamps=True): each segment gets its words, the
    // segments' times may move to them, and a window advances to its last word's end.
    bool wordTimestamps = false;
    WordTimestampOptions words;
};

// Called after each window: fraction of the audio done (0..1) and the segments it produced.
using TranscribeProgress = std::function<void(double fraction, const std::vector<Segment>& newSegments)>;

// The session must be able to hold max(beam size, best-of) beams.
Result<Transcript> transcribe(InferenceSession& session, const Tokenizer& tokenizer, SampleReader& audio,
                              const TranscribeOptions& options, const TranscribeProgress& progress = {});
// samples: 16 kHz mono, in memory.
Result<Transcript> transcribe(InferenceSession& session, const Tokenizer& tokenizer, std::span<const float> samples,
                              const TranscribeOptions& options, const TranscribeProgress& progress = {});

} // namespace hearsay
