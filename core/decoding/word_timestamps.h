// Word timestamps for the segments of one decoded window, as faster-whisper 1.2.1's
// add_word_timestamps(): one forced pass over the window's text aligns its words; then the
// reference's corrections: words at sentence ends no longer than twice the median word
// duration, punctuation merged into the words, the first word after a pause and the first and
// last words of a segment clamped against the segment's own timestamps (which they may move).
#pragma once

#include "core/decoding/decoding_options.h"
#include "core/decoding/window_segmenter.h"
#include "core/decoding/word_alignment.h"
#include "core/transcript/transcript.h"

#include <string>
#include <utility>
#include <vector>

namespace hearsay {

struct WordTimestampOptions {
    std::string prependPunctuations{kPrependPunctuations};
    std::string appendPunctuations{kAppendPunctuations};
};

struct WindowWords {
    std::vector<std::vector<Word>> words;  // per slice, absolute times (rounded to 0.01 s)
};

// The alignment heads a model's word timestamps read: the ones its files name (CTranslate2's
// config.json, a checkpoint's generation_config.json), else OpenAI's published heads for an
// official model of these dimensions, else every head of the last half of the decoder layers.
std::vector<std::pair<int, int>> alignmentHeads(const WhisperModel& model);

// The words of `text` (a window's text tokens, no specials) with their times from the window's
// start, from one forced pass over the window the session holds (`frames` encoder positions of
// audio; 0 or no text: none). Punctuation is not merged.
Result<std::vector<AlignedWord>> alignText(InferenceSession& session, const Tokenizer& tokenizer, const std::string& language,
                                           DecodingTaskKind task, const std::vector<int>& text, int frames);

// slices: the window's segments (their start/end may be moved to the words); the session holds
// the window's encoding. language: the transcript's language code; segmentFrames: the window's
// mel frames of audio; lastSpeechTimestamp: where the speech before this window ended.
Result<WindowWords> addWordTimestamps(InferenceSession& session, const Tokenizer& tokenizer, const std::string& language,
                                      DecodingTaskKind task, std::vector<WindowSlice>& slices, double timeOffset,
                                      int segmentFrames, double lastSpeechTimestamp, const WordTimestampOptions& options);

} // namespace hearsay
