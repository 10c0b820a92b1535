// Word timings from the cross-attention of the alignment heads, as faster-whisper's
// find_alignment() on CTranslate2's Whisper::align(): a forced pass over
// [start of transcript…, no-timestamps, text…, end of text] gives each alignment head's attention
// over the window's frames; per head the rows are softmaxed over the frames, normalised across
// the tokens, median-filtered along time and averaged over the heads; dynamic time warping then
// walks the text tokens through the frames, and each word starts at the frame where its first
// token is reached. Words come from the tokenizer's word split (split_to_word_tokens).
#pragma once

#include "core/nn/inference_session.h"
#include "core/text/tokenizer.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hearsay {

// One word of a window's text with its timing relative to the window's start.
struct AlignedWord {
    std::string word;         // as decoded, leading space kept
    std::vector<int> tokens;
    double start = 0.0;       // seconds from the window start
    double end = 0.0;
    double probability = 0.0; // mean probability of its tokens
};

// The reference's word split of `tokens` (text tokens, optionally followed by specials): words
// are decoded pieces that end on whole characters; outside Chinese, Japanese, Thai, Lao, Burmese
// and Cantonese a piece joins the previous word unless it starts with a space, is punctuation
// or a special token.
struct WordSplit {
    std::vector<std::string> words;
    std::vector<std::vector<int>> tokens;
};
WordSplit splitWordTokens(const Tokenizer& tokenizer, const std::vector<int>& tokens, std::string_view language);

// The path of least cost through -matrix ([rows][cols]): (row, column) pairs from (0, 0) to the
// last cell, ties broken as the reference does (diagonal, then up, then left).
std::vector<std::pair<int, int>> negativeDtw(const std::vector<float>& matrix, int rows, int cols);

// Median of each `width` window along a row of `length` values, the edges mirrored (no repeat
// of the edge value); a row no longer than width / 2 is left as it is.
void medianFilterRow(float* row, int length, int width);

// Words of `textTokens` (the window's text tokens, no specials) with their timing, from the forced
// pass over sotSequence + [noTimestamps] + textTokens + [eot] whose scores cover `frames`
// encoder positions. Empty when there is no text or no frame.
std::vector<AlignedWord> alignWords(const ForcedPass& pass, int sotLength, const std::vector<int>& textTokens,
                                    const Tokenizer& tokenizer, std::string_view language, int medianWidth = 7);

// faster-whisper's merge_punctuations(): a word that is an opening mark joins the next word, a
// closing mark joins the previous one; the word left behind is empty (its tokens moved).
void mergePunctuations(std::vector<AlignedWord>& words, std::string_view prepended, std::string_view appended);

// The reference's default punctuation sets (faster-whisper's transcribe()).
inline constexpr std::string_view kPrependPunctuations = "\"'\u201c\u00bf([{-";
inline constexpr std::string_view kAppendPunctuations = "\"'.\u3002,\uff0c!\uff01?\uff1f:\uff1a\u201d)]}\u3001";

} // namespace hearsay
