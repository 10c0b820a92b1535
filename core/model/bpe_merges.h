// Derives the merges.txt list of a byte-level BPE from a tiktoken-style vocabulary (rank = id):
// for each multi-byte token, tiktoken's merge loop is run on its bytes with only lower-ranked
// tokens available; the last merge gives the pair that creates the token.
#pragma once

#include "core/util/result.h"

#include <string>
#include <utility>
#include <vector>

namespace hearsay {

struct BpeMerge {
    std::string left, right;  // raw bytes
    int rank = 0;             // id of left + right
};

// `tokens[id]` are the raw bytes of each ordinary token. Merges come in rank order. An error
// when some token cannot be built from exactly two lower-ranked tokens.
Result<std::vector<BpeMerge>> deriveBpeMerges(const std::vector<std::string>& tokens);

} // namespace hearsay
