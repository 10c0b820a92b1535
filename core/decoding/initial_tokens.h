// The start-of-transcript sequence a window's decoding begins with:
// [<|startofprev|> prompt...] <|startoftranscript|> [<|lang|> <|task|>] [<|notimestamps|>] [prefix...].
#pragma once

#include "core/decoding/decoding_options.h"
#include "core/text/tokenizer.h"

#include <vector>

namespace hearsay {

struct InitialTokens {
    std::vector<int> tokens;  // the whole sequence fed before the first sampled token
    int sampleBegin = 0;      // index of the first sampled token (== tokens.size())
    int prefixBegin = 0;      // index of the first prefix token (== sampleBegin without a prefix)
    int sotIndex = 0;         // index of <|startoftranscript|> (no-speech probability is read there)
    int languageIndex = -1;   // index of the language token; -1 for English-only models
};

// How many prompt tokens a decoder of nTextCtx positions keeps (the most recent ones): nTextCtx/2 - 1.
inline size_t promptCapacity(int nTextCtx) { return size_t(nTextCtx / 2 > 1 ? nTextCtx / 2 - 1 : 0); }

// languageToken is ignored for English-only models (they have no language or task tokens).
// The prompt keeps its nTextCtx/2 - 1 most recent tokens; the prefix at most nTextCtx/2 - sampleLen
// (all of it when that is not positive, as the reference's slicing does).
InitialTokens buildInitialTokens(const SpecialTokens& special, bool multilingual, int languageToken,
                                 DecodingTaskKind task, bool withoutTimestamps, const std::vector<int>& prompt,
                                 const std::vector<int>& prefix, int nTextCtx, int sampleLen);

} // namespace hearsay
