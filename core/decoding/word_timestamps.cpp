// faster-whisper 1.2.1's add_word_timestamps() for one window (transcribe.py), on the alignment of
// word_alignment.cpp.
#include "core/decoding/word_timestamps.h"

#include "core/decoding/initial_tokens.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace hearsay {
namespace {

// OpenAI's published alignment heads (whisper/__init__.py, decoded from its base85 masks).
struct PublishedHeads {
    const char* model;
    std::vector<std::pair<int, int>> heads;
};
const std::vector<PublishedHeads>& publishedHeads() {
    static const std::vector<PublishedHeads> table = {
        {"tiny.en", {{1, 0}, {2, 0}, {2, 5}, {3, 0}, {3, 1}, {3, 2}, {3, 3}, {3, 4}}},
        {"tiny", {{2, 2}, {3, 0}, {3, 2}, {3, 3}, {3, 4}, {3, 5}}},
        {"base.en", {{3, 3}, {4, 7}, {5, 1}, {5, 5}, {5, 7}}},
        {"base", {{3, 1}, {4, 2}, {4, 3}, {4, 7}, {5, 1}, {5, 2}, {5, 4}, {5, 6}}},
        {"small.en", {{6, 6}, {7, 0}, {7, 3}, {7, 8}, {8, 2}, {8, 5}, {8, 7}, {9, 0}, {9, 4}, {9, 8}, {9, 10}, {10, 0},
                      {10, 1}, {10, 2}, {10, 3}, {10, 6}, {10, 11}, {11, 2}, {11, 4}}},
        {"small", {{5, 3}, {5, 9}, {8, 0}, {8, 4}, {8, 7}, {8, 8}, {9, 0}, {9, 7}, {9, 9}, {10, 5}}},
        {"medium.en", {{11, 4}, {14, 1}, {14, 12}, {14, 14}, {15, 4}, {16, 0}, {16, 4}, {16, 9}, {17, 12}, {17, 14},
                       {18, 7}, {18, 10}, {18, 15}, {20, 0}, {20, 3}, {20, 9}, {20, 14}, {21, 12}}},
        {"medium", {{13, 15}, {15, 4}, {15, 15}, {16, 1}, {20, 0}, {23, 4}}},
        // large-v1 has large-v2's dimensions; a file of those dimensions gets large-v2's heads.
        {"large-v2", {{10, 12}, {13, 17}, {16, 11}, {16, 12}, {16, 13}, {17, 15}, {17, 16}, {18, 4}, {18, 11}, {18, 19},
                      {19, 11}, {21, 2}, {21, 3}, {22, 3}, {22, 9}, {22, 12}, {23, 5}, {23, 7}, {23, 13}, {25, 5},
                      {26, 1}, {26, 12}, {27, 15}}},
        {"large-v3", {{7, 0}, {10, 17}, {12, 18}, {13, 12}, {16, 1}, {17, 14}, {19, 11}, {21, 4}, {24, 1}, {25, 6}}},
        {"large-v3-turbo", {{2, 4}, {2, 11}, {3, 3}, {3, 6}, {3, 11}, {3, 14}}},
    };
    return table;
}

bool sameShape(const WhisperConfig& a, const WhisperConfig& b) {
    return a.nMels == b.nMels && a.nAudioState == b.nAudioState && a.nAudioLayer == b.nAudioLayer &&
           a.nTextLayer == b.nTextLayer && a.nTextHead == b.nTextHead && a.nVocab == b.nVocab;
}

// Python's round(x, 2) for the values met here (ties to even).
double round2(double x) { return std::nearbyint(x * 100.0) / 100.0; }

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}


} // namespace

std::vector<std::pair<int, int>> alignmentHeads(const WhisperModel& model) {
    const GenerationSettings& generation = model.generation();
    if (generation.fromGenerationConfig && !generation.alignmentHeads.empty()) return generation.alignmentHeads;
    for (const PublishedHeads& entry : publishedHeads()) {
        auto config = WhisperConfig::fromName(entry.model);
        if (config && sameShape(config.value(), model.config())) return entry.heads;
    }
    return generation.alignmentHeads;
}

Result<std::vector<AlignedWord>> alignText(InferenceSession& session, const Tokenizer& tokenizer, const std::string& language,
                                           DecodingTaskKind task, const std::vector<int>& text, int frames) {
    const SpecialTokens& special = tokenizer.special();
    frames = std::min(frames, session.audioContext());
    if (text.empty() || frames <= 0) return std::vector<AlignedWord>{};
    // The forced pass: start of transcript (language and task for multilingual models),
    // no-timestamps, the text, end of text.
    const int nTextCtx = session.model().config().nTextCtx;
    const InitialTokens start = buildInitialTokens(special, tokenizer.isMultilingual(),
                                                   tokenizer.isMultilingual() ? tokenizer.languageToken(language) : -1,
                                                   task, false, {}, {}, nTextCtx, 0);
    ForcedPassRequest request;
    request.tokens = start.tokens;
    const int sotLength = int(request.tokens.size());
    request.tokens.push_back(special.noTimestamps);
    request.tokens.insert(request.tokens.end(), text.begin(), text.end());
    request.tokens.push_back(special.eot);
    if (int(request.tokens.size()) > nTextCtx) return std::vector<AlignedWord>{};  // cannot be aligned in one pass
    request.heads = alignmentHeads(session.model());
    request.frames = frames;
    request.firstRow = sotLength;
    request.probabilityRows = int(text.size());
    request.textVocabulary = special.eot;
    auto pass = session.forcedPass(request);
    if (!pass) return pass.error();
    return alignWords(pass.value(), sotLength, text, tokenizer, language);
}

Result<WindowWords> addWordTimestamps(InferenceSession& session, const Tokenizer& tokenizer, const std::string& language,
                                      DecodingTaskKind task, std::vector<WindowSlice>& slices, double timeOffset,
                                      int segmentFrames, double lastSpeechTimestamp, const WordTimestampOptions& options) {
    const SpecialTokens& special = tokenizer.special();
    WindowWords out;
    out.words.resize(slices.size());
    std::vector<int> text;
    std::vector<size_t> sliceTextTokens;
    for (const WindowSlice& slice : slices) {
        size_t count = 0;
        for (int t : slice.tokens) {
            if (t < special.eot) {
                text.push_back(t);
                ++count;
            }
        }
        sliceTextTokens.push_back(count);
    }
    auto aligned = alignText(session, tokenizer, language, task, text, segmentFrames / 2);
    if (!aligned) return aligned.error();
    std::vector<AlignedWord>& alignment = aligned.value();

    // Words at sentence ends no longer than twice the median word duration (capped at 0.7 s).
    std::vector<double> durations;
    for (const AlignedWord& w : alignment) {
        if (w.end - w.start != 0.0) durations.push_back(w.end - w.start);
    }
    const double medianDuration = durations.empty() ? 0.0 : std::min(0.7, median(durations));
    const double maxDuration = medianDuration * 2;
    if (!durations.empty()) {
        constexpr std::string_view sentenceEnds = ".\u3002!\uff01?\uff1f";
        for (size_t i = 1; i < alignment.size(); ++i) {
            if (alignment[i].end - alignment[i].start > maxDuration) {
                if (contains(sentenceEnds, alignment[i].word)) {
                    alignment[i].end = alignment[i].start + maxDuration;
                } else if (contains(sentenceEnds, alignment[i - 1].word)) {
                    alignment[i].start = alignment[i].end - maxDuration;
                }
            }
        }
    }
    mergePunctuations(alignment, options.prependPunctuations, options.appendPunctuations);

    size_t wordIndex = 0;
    for (size_t s = 0; s < slices.size(); ++s) {
        WindowSlice& slice = slices[s];
        std::vector<Word>& words = out.words[s];
        size_t savedTokens = 0;
        while (wordIndex < alignment.size() && savedTokens < sliceTextTokens[s]) {
            const AlignedWord& timing = alignment[wordIndex];
            if (!timing.word.empty()) {
                words.push_back({timing.word, round2(timeOffset + timing.start), round2(timeOffset + timing.end),
                                 timing.probability});
            }
            savedTokens += timing.tokens.size();
            ++wordIndex;
        }
        if (words.empty()) continue;
        // The first word after a pause, and the second, no longer than the reference allows.
        if (words[0].end - lastSpeechTimestamp > medianDuration * 4 &&
            (words[0].end - words[0].start > maxDuration ||
             (words.size() > 1 && words[1].end - words[0].start > maxDuration * 2))) {
            if (words.size() > 1 && words[1].end - words[1].start > maxDuration) {
                const double boundary = std::max(words[1].end / 2, words[1].end - maxDuration);
                words[0].end = words[1].start = boundary;
            }
            words[0].start = std::max(0.0, words[0].end - maxDuration);
        }
        // The segment's own timestamps where the first or last word is too long, else the words'.
        if (slice.start < words[0].end && slice.start - 0.5 > words[0].start) {
            words[0].start = std::max(0.0, std::min(words[0].end - medianDuration, slice.start));
        } else {
            slice.start = words[0].start;
        }
        if (slice.end > words.back().start && slice.end + 0.5 < words.back().end) {
            words.back().end = std::max(words.back().start + medianDuration, slice.end);
        } else {
            slice.end = words.back().end;
        }
        lastSpeechTimestamp = slice.end;
    }
    return out;
}

} // namespace hearsay
