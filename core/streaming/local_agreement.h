// The commit policy of live transcription: LocalAgreement-2 (Macháček et al., whisper_streaming)
// over Whisper's token hypotheses of one growing window. Each step the window is decoded again
// with its committed part forced as the prefix; what the newest two hypotheses agree on, up to a
// word boundary, becomes committed; the rest is tentative. Pure: no model, no audio, no clock.
//
// Tokens are the window's as Whisper samples them: text tokens and timestamp tokens (ids ≥
// timestampBegin, 0.02 s steps from the window's start). Agreement is decided on the text tokens
// alone (two hypotheses often place a timestamp one step apart); commits carry the timestamps that
// sit among the committed text, so that the committed part keeps its segment boundaries and can
// be forced as the next prefix.
#pragma once

#include <functional>
#include <vector>

namespace hearsay {

class LocalAgreement {
public:
    // isWordStart(token): the text token begins a word (a leading space, or punctuation): a
    // commit ends only before such a token, never inside a word.
    LocalAgreement(int timestampBegin, std::function<bool(int)> isWordStart);

    struct Update {
        std::vector<int> committed;  // newly committed tokens (timestamps included), in order
        std::vector<int> tentative;  // the hypothesis after everything committed
    };

    // The committed tokens of the current window (window-relative timestamps): the prefix of the
    // next decode.
    const std::vector<int>& committedInWindow() const { return m_committed; }
    // The latest hypothesis after the committed part (what is shown as tentative).
    const std::vector<int>& tentative() const { return m_tentative; }

    // A new hypothesis: the tokens decoded after committedInWindow(). Commits the longest text
    // prefix it shares with the previous hypothesis, cut back to a word boundary both share;
    // with allowCommit false it only becomes the previous hypothesis (too little audio yet).
    Update update(const std::vector<int>& hypothesis, bool allowCommit = true);
    // Commits everything tentative (the end of an utterance, or Stop): returns it.
    std::vector<int> commitAll();

    // The last segment boundary inside the committed tokens: the index in committedInWindow() of
    // the first token after a closing timestamp that is followed by another timestamp (the next
    // segment's start), and that closing time in timestamp steps. Nothing when there is none.
    struct Boundary {
        size_t index = 0;
        int steps = 0;
    };
    bool lastCommittedBoundary(Boundary& boundary) const;
    // The last segment boundary anywhere in committed + tentative tokens (for a forced trim of
    // a window that grew too long without committed boundaries); index counts from the start of
    // committedInWindow() followed by tentative().
    bool lastBoundary(Boundary& boundary) const;
    // Commits the tentative tokens up to `index` (in committed + tentative numbering) without
    // agreement: a window that must be trimmed now. Returns them.
    std::vector<int> commitThrough(size_t index);

    // The window's start moved to `boundary` (one found above, inside the committed tokens):
    // the tokens before it are gone, the timestamps after it move back by boundary.steps.
    void trimTo(const Boundary& boundary);
    // A new window (after an utterance ended): nothing committed in it, no previous hypothesis.
    void reset();

private:
    bool isTimestamp(int token) const { return token >= m_timestampBegin; }
    std::vector<int> text(const std::vector<int>& tokens) const;
    // Index in `tokens` of its k-th text token (tokens.size() when k is the count).
    size_t indexOfText(const std::vector<int>& tokens, size_t k) const;

    int m_timestampBegin;
    std::function<bool(int)> m_isWordStart;
    std::vector<int> m_committed;  // window-relative, timestamps included
    std::vector<int> m_tentative;  // the latest hypothesis after m_committed
    bool m_havePrevious = false;
};

} // namespace hearsay
