// Aligned or estimated token times of a streaming window (see window_token_times.h).
#include "core/streaming/window_token_times.h"

#include <algorithm>

namespace hearsay {

void WindowTokenTimes::clear() {
    m_tokens.clear();
    m_times.clear();
}

void WindowTokenTimes::setAligned(const std::vector<int>& tokens, const std::vector<AlignedWord>& words, int timestampBegin) {
    clear();
    std::vector<TokenTime> times(tokens.size());
    size_t next = 0;  // the next token of `tokens` to match
    for (size_t w = 0; w < words.size(); ++w) {
        for (int token : words[w].tokens) {
            while (next < tokens.size() && tokens[next] >= timestampBegin) ++next;
            if (next == tokens.size() || tokens[next] != token) return;
            times[next++] = {words[w].start, words[w].end, int(w), words[w].probability};
        }
    }
    while (next < tokens.size() && tokens[next] >= timestampBegin) ++next;
    if (next != tokens.size()) return;  // text the words do not cover
    m_tokens = tokens;
    m_times = std::move(times);
}

std::vector<TokenTime> WindowTokenTimes::times(const Tokenizer& tokenizer, const std::vector<int>& tokens,
                                               double windowSeconds) const {
    const int timestampBegin = tokenizer.special().timestampBegin;
    std::vector<TokenTime> times(tokens.size());
    const bool aligned = !m_tokens.empty() && tokens.size() <= m_tokens.size() &&
                         std::equal(tokens.begin(), tokens.end(), m_tokens.begin());
    std::vector<size_t> pending;  // text tokens of the open segment
    double segmentStart = 0.0;
    // Shares [from, to] out over the pending tokens by their length in bytes.
    auto distribute = [&](double from, double to) {
        size_t total = 0;
        for (size_t i : pending) total += std::max<size_t>(1, tokenizer.tokenBytes(tokens[i]).size());
        double at = from;
        for (size_t i : pending) {
            const double share =
                total ? (to - from) * double(std::max<size_t>(1, tokenizer.tokenBytes(tokens[i]).size())) / double(total) : 0.0;
            times[i] = {at, at + share};
            at += share;
        }
        pending.clear();
    };
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] < timestampBegin) {
            if (aligned) {
                times[i] = m_times[i];
            } else {
                pending.push_back(i);
            }
            continue;
        }
        const double time = std::min(windowSeconds, double(tokens[i] - timestampBegin) * 0.02);
        if (!pending.empty()) distribute(segmentStart, std::max(segmentStart, time));
        segmentStart = time;
        times[i] = {time, time};
    }
    distribute(segmentStart, std::max(segmentStart, windowSeconds));
    return times;
}

} // namespace hearsay
