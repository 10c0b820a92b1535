// Subtitle cues from a transcript, as OpenAI's whisper CLI writes SRT and VTT: one cue per segment,
// or with word timestamps, lines of at most maxLineWidth characters and cues of at most
// maxLineCount lines (a pause of more than 3 s starts a new cue), and with highlightWords one cue
// per word, that word underlined (<u>…</u>) in its line.
#pragma once

#include "core/transcript/transcript.h"

#include <string>
#include <vector>

namespace hearsay {

struct SubtitleOptions {
    int maxLineWidth = 0;        // characters per line; 0: no limit (a segment's words stay one cue)
    int maxLineCount = 0;        // lines per cue; 0: no limit (segments are kept)
    bool highlightWords = false; // one cue per word, the word underlined
};

struct SubtitleCue {
    double start = 0.0;
    double end = 0.0;
    std::string text;  // lines separated by '\n'; <u> and </u> mark the highlighted word
};

// escape: applied to each piece of text (VTT: & < > as entities) before the markup is added.
// Without words in the transcript, or with default options, one cue per segment with text.
std::vector<SubtitleCue> subtitleCues(const Transcript& transcript, const SubtitleOptions& options,
                                      std::string (*escape)(const std::string&) = nullptr);

// Characters (Unicode code points) of UTF-8 text, as line widths count them.
int characterCount(const std::string& text);

} // namespace hearsay
