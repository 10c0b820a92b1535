// Commit policy helpers (see commit_policy.h).
#include "core/streaming/commit_policy.h"

#include <cctype>

namespace hearsay {

const char* commitPolicyName(CommitPolicy policy) {
    switch (policy) {
    case CommitPolicy::LocalAgreement: return "agreement";
    case CommitPolicy::AlignAtt: return "alignatt";
    case CommitPolicy::UtteranceEnd: return "utterance";
    }
    return "agreement";
}

std::optional<CommitPolicy> parseCommitPolicy(const std::string& name) {
    for (CommitPolicy p : {CommitPolicy::LocalAgreement, CommitPolicy::AlignAtt, CommitPolicy::UtteranceEnd})
        if (name == commitPolicyName(p)) return p;
    return std::nullopt;
}

// A text token that begins a word: a leading space, or anything but a letter or digit (punctuation,
// or a token that is not valid text on its own).
bool startsWord(const Tokenizer& tokenizer, int token) {
    const std::string bytes = tokenizer.tokenBytes(token);
    if (bytes.empty()) return true;
    const unsigned char c = static_cast<unsigned char>(bytes[0]);
    if (c == ' ') return true;
    if (c >= 0x80) return false;  // a letter of another script (or its continuation)
    return !std::isalnum(c) && c != '\'';
}

size_t stableWordPrefix(const std::vector<int>& window, const std::vector<TokenTime>& times, size_t first, double limit,
                        int timestampBegin, const std::function<bool(int)>& isWordStart) {
    size_t stable = 0;  // tokens of the hypothesis in the stable prefix
    bool wordStable = true, haveWord = false;
    for (size_t i = first; i < window.size() && i < times.size(); ++i) {
        const int token = window[i];
        if (token >= timestampBegin) continue;
        if (haveWord && isWordStart(token)) {
            if (!wordStable) break;
            stable = i - first;  // every token before this word, the timestamps between included
        }
        haveWord = true;
        wordStable = wordStable && times[i].word >= 0 && times[i].end <= limit;
    }
    return stable;  // the last word is never included
}

} // namespace hearsay
