// The alignment of faster-whisper 1.2.1 (transcribe.py find_alignment, merge_punctuations;
// tokenizer.py split_to_word_tokens) and CTranslate2 4.x (Whisper::align, ops::MedianFilter,
// negative_dtw), step by step.
#include "core/decoding/word_alignment.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hearsay {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kAsciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";  // Python's string.punctuation

// Python's `a in b` for strings (UTF-8 substrings are code point substrings).

// What the reference's decode_with_timestamps() gives for text tokens: specials are skipped.
std::string decodeText(const Tokenizer& tokenizer, const std::vector<int>& tokens) {
    std::vector<int> text;
    for (int t : tokens)
        if (t < tokenizer.special().eot) text.push_back(t);
    return tokenizer.decode(text);
}

WordSplit splitOnUnicode(const Tokenizer& tokenizer, const std::vector<int>& tokens) {
    const std::string full = decodeText(tokenizer, tokens);
    WordSplit split;
    std::vector<int> current;
    size_t offset = 0;  // bytes of the words so far (UTF-8 keeps the reference's character test)
    for (int token : tokens) {
        current.push_back(token);
        const std::string decoded = decodeText(tokenizer, current);
        const size_t at = decoded.find(kReplacement);
        const bool complete = at == std::string::npos ||
                              (offset + at < full.size() && full.compare(offset + at, kReplacement.size(), kReplacement) == 0);
        if (complete) {
            split.words.push_back(decoded);
            split.tokens.push_back(current);
            current.clear();
            offset += decoded.size();
        }
    }
    return split;
}

} // namespace

WordSplit splitWordTokens(const Tokenizer& tokenizer, const std::vector<int>& tokens, std::string_view language) {
    WordSplit pieces = splitOnUnicode(tokenizer, tokens);
    for (std::string_view unspaced : {"zh", "ja", "th", "lo", "my", "yue"}) {
        if (language == unspaced) return pieces;
    }
    WordSplit split;
    for (size_t i = 0; i < pieces.words.size(); ++i) {
        const std::string& piece = pieces.words[i];
        const bool special = pieces.tokens[i].front() >= tokenizer.special().eot;
        const bool withSpace = !piece.empty() && piece.front() == ' ';
        const bool punctuation = contains(kAsciiPunctuation, stripWhitespace(piece));
        if (special || withSpace || punctuation || split.words.empty()) {
            split.words.push_back(piece);
            split.tokens.push_back(pieces.tokens[i]);
        } else {
            split.words.back() += piece;
            split.tokens.back().insert(split.tokens.back().end(), pieces.tokens[i].begin(), pieces.tokens[i].end());
        }
    }
    return split;
}

std::vector<std::pair<int, int>> negativeDtw(const std::vector<float>& matrix, int rows, int cols) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    const size_t n = size_t(rows), m = size_t(cols), stride = m + 1;
    std::vector<float> cost((n + 1) * stride, inf);
    std::vector<signed char> trace((n + 1) * stride, -1);
    cost[0] = 0.0f;
    for (size_t j = 1; j <= m; ++j) {
        for (size_t i = 1; i <= n; ++i) {
            const float c0 = cost[(i - 1) * stride + j - 1], c1 = cost[(i - 1) * stride + j], c2 = cost[i * stride + j - 1];
            float c;
            signed char t;
            if (c0 < c1 && c0 < c2) {
                c = c0;
                t = 0;
            } else if (c1 < c0 && c1 < c2) {
                c = c1;
                t = 1;
            } else {
                c = c2;
                t = 2;
            }
            cost[i * stride + j] = -matrix[(i - 1) * m + (j - 1)] + c;
            trace[i * stride + j] = t;
        }
    }
    for (size_t k = 0; k <= m; ++k) trace[k] = 2;
    for (size_t k = 0; k <= n; ++k) trace[k * stride] = 1;
    std::vector<std::pair<int, int>> path;
    size_t i = n, j = m;
    while (i > 0 || j > 0) {
        path.emplace_back(int(i) - 1, int(j) - 1);
        const signed char t = trace[i * stride + j];
        if (t == 0) {
            --i;
            --j;
        } else if (t == 1) {
            --i;
        } else {
            --j;
        }
    }
    std::reverse(path.begin(), path.end());
    return path;
}

void medianFilterRow(float* row, int length, int width) {
    const int rank = width / 2;
    if (length <= rank) return;
    const std::vector<float> in(row, row + length);
    std::vector<float> window(static_cast<size_t>(width));
    for (int j = 0; j < length; ++j) {
        for (int k = -rank; k <= rank; ++k) {
            int read = std::abs(j + k);
            if (read >= length) read = length - (read - length) - 2;
            window[size_t(k + rank)] = in[size_t(read)];
        }
        std::nth_element(window.begin(), window.begin() + rank, window.end());
        row[j] = window[size_t(rank)];
    }
}

std::vector<AlignedWord> alignWords(const ForcedPass& pass, int sotLength, const std::vector<int>& textTokens,
                                    const Tokenizer& tokenizer, std::string_view language, int medianWidth) {
    const int textLength = int(textTokens.size());
    const int frames = pass.frames, rows = pass.rows;
    if (textLength == 0 || frames <= 0 || rows != sotLength + textLength + 2) return {};
    const size_t heads = pass.scores.size() / (size_t(rows) * size_t(frames));
    if (heads == 0) return {};

    // Per head: softmax over the frames, then each frame normalised across the rows (mean 0,
    // variance 1, no epsilon), then the median filter along the frames.
    std::vector<float> weights(pass.scores);
    for (size_t h = 0; h < heads; ++h) {
        float* head = weights.data() + h * size_t(rows) * size_t(frames);
        for (int r = 0; r < rows; ++r) {
            float* row = head + size_t(r) * size_t(frames);
            const float top = *std::max_element(row, row + frames);
            float sum = 0.0f;
            for (int f = 0; f < frames; ++f) {
                row[f] = std::exp(row[f] - top);
                sum += row[f];
            }
            for (int f = 0; f < frames; ++f) row[f] /= sum;
        }
        for (int f = 0; f < frames; ++f) {
            double mean = 0.0, variance = 0.0;
            for (int r = 0; r < rows; ++r) mean += head[size_t(r) * size_t(frames) + size_t(f)];
            mean /= rows;
            for (int r = 0; r < rows; ++r) {
                const double x = head[size_t(r) * size_t(frames) + size_t(f)] - mean;
                variance += x * x;
            }
            variance /= rows;
            const double scale = 1.0 / std::sqrt(variance);
            for (int r = 0; r < rows; ++r) {
                float& x = head[size_t(r) * size_t(frames) + size_t(f)];
                x = float((x - mean) * scale);
            }
        }
        for (int r = 0; r < rows; ++r) medianFilterRow(head + size_t(r) * size_t(frames), frames, medianWidth);
    }
    // The mean over the heads of the rows from the no-timestamps token to the last text token.
    const int matrixRows = textLength + 1;
    std::vector<float> matrix(size_t(matrixRows) * size_t(frames), 0.0f);
    for (int r = 0; r < matrixRows; ++r) {
        for (int f = 0; f < frames; ++f) {
            float sum = 0.0f;
            for (size_t h = 0; h < heads; ++h) {
                sum += weights[(h * size_t(rows) + size_t(sotLength + r)) * size_t(frames) + size_t(f)];
            }
            matrix[size_t(r) * size_t(frames) + size_t(f)] = sum / float(heads);
        }
    }
    const auto path = negativeDtw(matrix, matrixRows, frames);

    // The time at which the path first reaches each row: token i starts at jumpTimes[i].
    std::vector<double> jumpTimes;
    for (size_t k = 0; k < path.size(); ++k) {
        if (k == 0 || path[k].first != path[k - 1].first) jumpTimes.push_back(double(path[k].second) / 50.0);
    }
    std::vector<int> withEnd = textTokens;
    withEnd.push_back(tokenizer.special().eot);
    const WordSplit split = splitWordTokens(tokenizer, withEnd, language);
    if (split.tokens.size() <= 1) return {};
    std::vector<AlignedWord> words;
    size_t boundary = 0;
    for (size_t w = 0; w + 1 < split.tokens.size(); ++w) {
        const size_t next = boundary + split.tokens[w].size();
        if (next >= jumpTimes.size()) break;
        AlignedWord word;
        word.word = split.words[w];
        word.tokens = split.tokens[w];
        word.start = jumpTimes[boundary];
        word.end = jumpTimes[next];
        double sum = 0.0;
        for (size_t i = boundary; i < next; ++i) {
            sum += i < pass.nextTokenProbabilities.size() ? double(pass.nextTokenProbabilities[i]) : 0.0;
        }
        word.probability = sum / double(next - boundary);
        words.push_back(std::move(word));
        boundary = next;
    }
    return words;
}

void mergePunctuations(std::vector<AlignedWord>& words, std::string_view prepended, std::string_view appended) {
    if (words.size() < 2) return;
    // Opening marks join the word after them (walking backwards).
    for (int i = int(words.size()) - 2, j = int(words.size()) - 1; i >= 0; --i) {
        AlignedWord& previous = words[size_t(i)];
        AlignedWord& following = words[size_t(j)];
        if (!previous.word.empty() && previous.word.front() == ' ' && contains(prepended, stripWhitespace(previous.word))) {
            following.word = previous.word + following.word;
            following.tokens.insert(following.tokens.begin(), previous.tokens.begin(), previous.tokens.end());
            previous.word.clear();
            previous.tokens.clear();
        } else {
            j = i;
        }
    }
    // Closing marks join the word before them.
    for (size_t i = 0, j = 1; j < words.size(); ++j) {
        AlignedWord& previous = words[i];
        AlignedWord& following = words[j];
        if ((previous.word.empty() || previous.word.back() != ' ') && contains(appended, following.word)) {
            previous.word += following.word;
            previous.tokens.insert(previous.tokens.end(), following.tokens.begin(), following.tokens.end());
            following.word.clear();
            following.tokens.clear();
        } else {
            i = j;
        }
    }
}

} // namespace hearsay
