// whisper/utils.py SubtitlesWriter.iterate_result() (OpenAI), on Hearsay's transcripts.
#include "core/transcript/subtitle_cues.h"
#include "core/util/strings.h"

#include "core/transcript/timestamp_format.h"

namespace hearsay {
namespace {

// One piece of cue text: a single line, no "-->" (it would read as a timing line).
std::string defuse(const std::string& text, std::string (*escape)(const std::string&)) {
    std::string s = text;
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    for (size_t pos = 0; (pos = s.find("-->", pos)) != std::string::npos;) s.replace(pos, 3, "->");
    return escape ? escape(s) : s;
}

struct Timing {
    std::string word;  // may begin with '\n' (a line break before it)
    double start = 0.0;
    double end = 0.0;
};

// Groups the words into cues of lines (iterate_subtitles()).
std::vector<std::vector<Timing>> groupWords(const Transcript& transcript, const SubtitleOptions& options) {
    const bool preserveSegments = options.maxLineCount <= 0 || options.maxLineWidth <= 0;
    const int maxLineWidth = options.maxLineWidth > 0 ? options.maxLineWidth : 1000;
    std::vector<std::vector<Timing>> cues;
    std::vector<Timing> cue;
    int lineLength = 0, lineCount = 1;
    double last = 0.0;
    for (const Segment& s : transcript.segments) {
        if (!s.words.empty()) {
            last = s.words.front().start;
            break;
        }
    }
    for (const Segment& segment : transcript.segments) {
        for (size_t i = 0; i < segment.words.size(); ++i) {
            Timing timing{segment.words[i].word, segment.words[i].start, segment.words[i].end};
            const bool longPause = !preserveSegments && timing.start - last > 3.0;
            const bool hasRoom = lineLength + characterCount(timing.word) <= maxLineWidth;
            const bool segmentBreak = i == 0 && !cue.empty() && preserveSegments;
            if (lineLength > 0 && hasRoom && !longPause && !segmentBreak) {
                lineLength += characterCount(timing.word);  // the line goes on
            } else {
                timing.word = stripWhitespace(timing.word);
                if ((!cue.empty() && options.maxLineCount > 0 && (longPause || lineCount >= options.maxLineCount)) ||
                    segmentBreak) {
                    cues.push_back(std::move(cue));  // a new cue
                    cue.clear();
                    lineCount = 1;
                } else if (lineLength > 0) {
                    ++lineCount;  // a new line
                    timing.word = "\n" + timing.word;
                }
                lineLength = characterCount(stripWhitespace(timing.word));
            }
            cue.push_back(std::move(timing));
            last = cue.back().start;
        }
    }
    if (!cue.empty()) cues.push_back(std::move(cue));
    return cues;
}

} // namespace

int characterCount(const std::string& text) {
    int count = 0;
    for (unsigned char c : text) count += (c & 0xC0) != 0x80;
    return count;
}

std::vector<SubtitleCue> subtitleCues(const Transcript& transcript, const SubtitleOptions& options,
                                      std::string (*escape)(const std::string&)) {
    std::vector<SubtitleCue> out;
    bool haveWords = false;
    for (const Segment& s : transcript.segments) haveWords = haveWords || !s.words.empty();
    if (!haveWords) {
        for (const Segment& s : transcript.segments) {
            const std::string text = defuse(stripWhitespace(s.text), escape);
            if (!text.empty()) out.push_back({s.start, s.end, text});
        }
        return out;
    }
    // The timestamps as written (milliseconds): a highlighted cue is split where they differ.
    auto stamp = [](double t) { return formatTimestamp(t, true, '.'); };
    for (std::vector<Timing>& cue : groupWords(transcript, options)) {
        std::vector<std::string> words;  // each word's text, its leading line break or space kept
        for (const Timing& t : cue) {
            const bool newline = !t.word.empty() && t.word.front() == '\n';
            words.push_back((newline ? "\n" : "") + defuse(newline ? t.word.substr(1) : t.word, escape));
        }
        std::string text;
        for (const std::string& w : words) text += w;
        if (!options.highlightWords) {
            out.push_back({cue.front().start, cue.back().end, text});
            continue;
        }
        double last = cue.front().start;
        for (size_t i = 0; i < cue.size(); ++i) {
            if (stamp(last) != stamp(cue[i].start)) out.push_back({last, cue[i].start, text});
            std::string marked;
            for (size_t j = 0; j < words.size(); ++j) {
                if (j != i) {
                    marked += words[j];
                    continue;
                }
                // Leading white space (a line break, a space) stays outside the mark.
                const size_t body = words[j].find_first_not_of(" \t\n\r\f\v");
                if (body == std::string::npos) {
                    marked += words[j] + "<u></u>";
                } else {
                    marked += words[j].substr(0, body) + "<u>" + words[j].substr(body) + "</u>";
                }
            }
            out.push_back({cue[i].start, cue[i].end, marked});
            last = cue[i].end;
        }
    }
    return out;
}

} // namespace hearsay
