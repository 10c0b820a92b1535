// The pieces of the commit policies that read tokens and their times rather than the session's
// state: where a word begins, the names of the policies, and AlignAtt's stable prefix. Pure: no
// model, no audio, no clock.
#pragma once

#include "core/streaming/streaming_options.h"
#include "core/streaming/window_token_times.h"
#include "core/text/tokenizer.h"

#include <functional>
#include <vector>

namespace hearsay {

// A text token that begins a word: a leading space, or anything but a letter or digit
// (punctuation, or a token that is not valid text on its own).
bool startsWord(const Tokenizer& tokenizer, int token);

// AlignAtt's commit: of window[first, end) (a hypothesis after the committed tokens), how many
// tokens form whole words that were aligned (times[i].word >= 0) and end no later than `limit`
// (seconds from the window's start). The prefix stops before the first word that is not, and
// never takes the hypothesis's last word (it may still grow with more audio); the timestamps
// after a stable word go with it (they close its segment and open the next).
// isWordStart: startsWord() of the model's tokenizer; tokens from timestampBegin on are timestamps.
size_t stableWordPrefix(const std::vector<int>& window, const std::vector<TokenTime>& times, size_t first, double limit,
                        int timestampBegin, const std::function<bool(int)>& isWordStart);

} // namespace hearsay
