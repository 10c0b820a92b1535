// SRT and VTT with word timestamps, read back by a parser of this test's own: lines no wider than
// --max-line-width, cues of at most --max-line-count lines, every word once and in order, cue
// times from the words; highlighted files well formed (one <u>…</u> per cue, around one word,
// cues in time order, the VTT entities intact). The alignment's pieces (DTW, median filter,
// punctuation merge) against hand-worked examples.
#include "core/decoding/word_alignment.h"
#include "core/transcript/subtitle_cues.h"
#include "core/transcript/transcript_export.h"

#include <QtTest>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace hearsay;

namespace {

struct ParsedCue {
    double start = 0.0, end = 0.0;
    std::vector<std::string> lines;
};

double parseTime(const std::string& s, bool* ok) {
    // [HH:]MM:SS[,.]mmm
    int h = 0, m = 0, sec = 0, ms = 0;
    char sep = 0;
    *ok = false;
    if (std::sscanf(s.c_str(), "%d:%d:%d%c%d", &h, &m, &sec, &sep, &ms) == 5 && (sep == ',' || sep == '.')) {
        *ok = true;
    } else if (std::sscanf(s.c_str(), "%d:%d%c%d", &m, &sec, &sep, &ms) == 4 && (sep == ',' || sep == '.')) {
        h = 0;
        *ok = true;
    }
    return h * 3600.0 + m * 60.0 + sec + ms / 1000.0;
}

// Cues of an SRT (numbered) or VTT (WEBVTT header) file; `error` says what is malformed.
std::vector<ParsedCue> parseSubtitles(const std::string& text, bool vtt, QString* error) {
    std::vector<ParsedCue> cues;
    std::istringstream in(text);
    std::string line;
    if (vtt) {
        std::getline(in, line);
        if (line != "WEBVTT") *error = "no WEBVTT header";
        std::getline(in, line);
        if (!line.empty()) *error = "no blank line after the header";
    }
    int expectedIndex = 1;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (!vtt) {
            if (line != std::to_string(expectedIndex++)) *error = QString("cue number '%1'").arg(line.c_str());
            if (!std::getline(in, line)) *error = "a cue number without timing";
        }
        const size_t arrow = line.find(" --> ");
        if (arrow == std::string::npos) {
            *error = QString("timing line '%1'").arg(line.c_str());
            return cues;
        }
        ParsedCue cue;
        bool ok1 = false, ok2 = false;
        cue.start = parseTime(line.substr(0, arrow), &ok1);
        cue.end = parseTime(line.substr(arrow + 5), &ok2);
        if (!ok1 || !ok2) *error = QString("times in '%1'").arg(line.c_str());
        while (std::getline(in, line) && !line.empty()) cue.lines.push_back(line);
        if (cue.lines.empty()) *error = "a cue without text";
        cues.push_back(cue);
    }
    return cues;
}

int width(const std::string& s) { return characterCount(s); }

// A transcript of two segments of words, one with a long pause inside, one word with markup.
Transcript sample() {
    Transcript t;
    const char* first[] = {" And", " so,", " my", " fellow", " Americans,", " ask", " not", " what", " your",
                           " country", " can", " do", " for", " you,"};
    const char* second[] = {" ask", " what", " you", " can", " do", " for", " your", " country", " <&>", " now."};
    Segment a;
    a.start = 0.0;
    double at = 0.3;
    for (const char* w : first) {
        a.words.push_back({w, at, at + 0.4, 0.9});
        a.text += w;
        at += 0.5;
    }
    a.end = at;
    Segment b;
    at += 4.0;  // a long pause
    b.start = at;
    for (const char* w : second) {
        b.words.push_back({w, at, at + 0.3, 0.8});
        b.text += w;
        at += 0.35;
    }
    b.end = at;
    t.segments = {a, b};
    return t;
}

std::string allWordsOf(const Transcript& t) {
    std::string s;
    for (const Segment& seg : t.segments)
        for (const Word& w : seg.words) s += w.word;
    return s;
}

std::string squash(std::string s) {
    std::string out;
    for (char c : s)
        if (c != ' ' && c != '\n') out += c;
    return out;
}

std::string unescape(std::string s) {
    for (auto [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
        for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += std::strlen(to)) s.replace(p, std::strlen(from), to);
    }
    return s;
}

} // namespace

class TestSubtitleLines : public QObject {
    Q_OBJECT

private slots:
    void linesAndCues_data() {
        QTest::addColumn<bool>("vtt");
        QTest::addColumn<int>("maxWidth");
        QTest::addColumn<int>("maxCount");
        for (bool vtt : {false, true}) {
            for (int w : {12, 20, 42}) {
                for (int c : {1, 2, 3}) {
                    QTest::newRow(qPrintable(QString("%1 w%2 c%3").arg(vtt ? "vtt" : "srt").arg(w).arg(c))) << vtt << w << c;
                }
            }
        }
    }

    void linesAndCues() {
        QFETCH(bool, vtt);
        QFETCH(int, maxWidth);
        QFETCH(int, maxCount);
        const Transcript t = sample();
        const SubtitleOptions options{maxWidth, maxCount, false};
        const std::string text = vtt ? toVtt(t, options) : toSrt(t, options);
        QString error;
        const auto cues = parseSubtitles(text, vtt, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(cues.size() >= 2);
        std::string joined;
        double previousEnd = 0.0;
        for (const ParsedCue& cue : cues) {
            QVERIFY2(int(cue.lines.size()) <= maxCount, qPrintable(QString("%1 lines").arg(cue.lines.size())));
            for (const std::string& line : cue.lines) {
                // A single word longer than the width stands alone on its line.
                const std::string shown = vtt ? unescape(line) : line;  // widths count characters, not entities
                QVERIFY2(width(shown) <= maxWidth || shown.find(' ') == std::string::npos, line.c_str());
                QVERIFY2(line == line.substr(line.find_first_not_of(' ')), "a line starts with a space");
                joined += line + " ";
            }
            QVERIFY(cue.start >= previousEnd - 1e-9);
            QVERIFY(cue.end > cue.start);
            previousEnd = cue.end;
        }
        QCOMPARE(squash(vtt ? unescape(joined) : joined), squash(allWordsOf(t)));
        // The pause of 4 s starts a new cue: no cue spans it.
        const double pauseStart = t.segments[0].words.back().end, pauseEnd = t.segments[1].words.front().start;
        for (const ParsedCue& cue : cues) QVERIFY(!(cue.start < pauseStart && cue.end > pauseEnd));
    }

    // Without the line options: one cue per segment, the segment's words on one line.
    void segmentsKept() {
        const Transcript t = sample();
        QString error;
        const auto cues = parseSubtitles(toSrt(t, {}), false, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(cues.size(), size_t(2));
        QCOMPARE(cues[0].lines.size(), size_t(1));
        QCOMPARE(cues[0].start, 0.3);
    }

    void highlighted_data() {
        QTest::addColumn<bool>("vtt");
        QTest::newRow("srt") << false;
        QTest::newRow("vtt") << true;
    }

    void highlighted() {
        QFETCH(bool, vtt);
        const Transcript t = sample();
        const SubtitleOptions options{20, 2, true};
        const std::string text = vtt ? toVtt(t, options) : toSrt(t, options);
        QString error;
        const auto cues = parseSubtitles(text, vtt, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        size_t words = 0;
        for (const Segment& s : t.segments) words += s.words.size();
        size_t highlightedCues = 0;
        std::vector<std::string> underlined;
        double previousStart = -1.0;
        for (const ParsedCue& cue : cues) {
            QVERIFY(cue.start >= previousStart);
            QVERIFY(cue.end >= cue.start);
            previousStart = cue.start;
            std::string all;
            for (const std::string& line : cue.lines) all += line + "\n";
            const size_t open = all.find("<u>"), close = all.find("</u>");
            if (open == std::string::npos) {
                QVERIFY2(close == std::string::npos, all.c_str());
                continue;
            }
            ++highlightedCues;
            QVERIFY2(close != std::string::npos && close > open, all.c_str());
            QVERIFY2(all.find("<u>", open + 3) == std::string::npos && all.find("</u>", close + 4) == std::string::npos,
                     all.c_str());
            const std::string word = all.substr(open + 3, close - open - 3);
            QVERIFY2(!word.empty() && word.find(' ') == std::string::npos && word.find('\n') == std::string::npos, all.c_str());
            underlined.push_back(vtt ? unescape(word) : word);
            if (vtt) {  // no raw markup character outside the tags
                std::string rest = all;
                rest.erase(close, 4);
                rest.erase(open, 3);
                QVERIFY2(rest.find('<') == std::string::npos && rest.find('>') == std::string::npos, rest.c_str());
            }
        }
        QCOMPARE(highlightedCues, words);
        size_t k = 0;
        for (const Segment& s : t.segments)
            for (const Word& w : s.words) QCOMPARE(underlined[k++], w.word.substr(1));
    }

    // A path through a hand-made matrix: each token over the frames it is strongest on.
    void dynamicTimeWarping() {
        // 2 tokens x 4 frames, token 0 strongest on frames 0-1, token 1 on frames 2-3.
        const std::vector<float> m = {1, 1, -1, -1, -1, -1, 1, 1};
        const auto path = negativeDtw(m, 2, 4);
        const std::vector<std::pair<int, int>> expected = {{0, 0}, {0, 1}, {1, 2}, {1, 3}};
        QCOMPARE(path, expected);
    }

    void medianFilter() {
        std::vector<float> row = {5, 1, 9, 2, 2, 8, 3};
        medianFilterRow(row.data(), int(row.size()), 3);
        // Mirrored edges: [1 5 1] -> 1, [5 1 9] -> 5, [1 9 2] -> 2, [9 2 2] -> 2, [2 2 8] -> 2,
        // [2 8 3] -> 3, [8 3 8] -> 8.
        const std::vector<float> expected = {1, 5, 2, 2, 2, 3, 8};
        QCOMPARE(row, expected);
        std::vector<float> shortRow = {3, 1};
        medianFilterRow(shortRow.data(), 2, 7);  // no longer than half the width: unchanged
        QCOMPARE(shortRow, (std::vector<float>{3, 1}));
    }

    void punctuationMerged() {
        std::vector<AlignedWord> words = {{" \"", {1}, 0, 0.1, 0.5}, {"Hello", {2}, 0.1, 0.5, 0.9}, {",", {3}, 0.5, 0.6, 0.8},
                                          {" world", {4}, 0.6, 1.0, 0.7}, {".\"", {5}, 1.0, 1.1, 0.6}};
        mergePunctuations(words, kPrependPunctuations, kAppendPunctuations);
        QCOMPARE(words[0].word, std::string());
        QCOMPARE(words[1].word, std::string(" \"Hello,"));
        QCOMPARE(words[1].tokens, (std::vector<int>{1, 2, 3}));
        QCOMPARE(words[2].word, std::string());
        QCOMPARE(words[3].word, std::string(" world"));  // ".\"" is no single closing mark
    }
};

QTEST_GUILESS_MAIN(TestSubtitleLines)
#include "tst_subtitle_lines.moc"
