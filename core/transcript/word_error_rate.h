// Word error rate: the measure of accuracy in the results (against known sentences, and of the
// streaming text against the offline transcript of the same audio). Text is normalised first: lower
// case, punctuation removed (apostrophes inside words kept), whitespace collapsed; the same
// normaliser as tests/reference/gen_real_golden.py.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

std::string normaliseForWer(std::string_view text);
std::vector<std::string> werWords(std::string_view text);  // the normalised words

struct WordErrors {
    int errors = 0;           // substitutions + deletions + insertions (word-level Levenshtein)
    int referenceWords = 0;
    double rate() const { return referenceWords > 0 ? double(errors) / referenceWords : (errors > 0 ? 1.0 : 0.0); }
};

WordErrors wordErrors(std::string_view reference, std::string_view hypothesis);
// The errors of the reference against the beginning of the hypothesis that matches it best (the
// words after that beginning cost nothing): "was this said first", for a text that goes on, or was
// cut off, after the part that is known.
WordErrors leadingWordErrors(std::string_view reference, std::string_view hypothesis);

} // namespace hearsay
