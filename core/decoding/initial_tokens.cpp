// Builds the start-of-transcript sequence exactly as the reference's DecodingTask does.
#include "core/decoding/initial_tokens.h"

#include <algorithm>

namespace hearsay {

InitialTokens buildInitialTokens(const SpecialTokens& special, bool multilingual, int languageToken,
                                 DecodingTaskKind task, bool withoutTimestamps, const std::vector<int>& prompt,
                                 const std::vector<int>& prefix, int nTextCtx, int sampleLen) {
    InitialTokens result;
    std::vector<int>& tokens = result.tokens;

    if (!prompt.empty()) {
        tokens.push_back(special.startOfPrev);
        const size_t keep = promptCapacity(nTextCtx);
        const size_t first = prompt.size() > keep ? prompt.size() - keep : 0;
        tokens.insert(tokens.end(), prompt.begin() + std::ptrdiff_t(first), prompt.end());
    }

    result.sotIndex = int(tokens.size());
    tokens.push_back(special.sot);
    if (multilingual) {
        result.languageIndex = int(tokens.size());
        tokens.push_back(languageToken);
        tokens.push_back(task == DecodingTaskKind::Translate ? special.translate : special.transcribe);
    }
    if (withoutTimestamps) tokens.push_back(special.noTimestamps);

    result.prefixBegin = int(tokens.size());
    if (!prefix.empty()) {
        const int maxPrefix = nTextCtx / 2 - sampleLen;
        size_t first = 0;
        if (maxPrefix > 0 && prefix.size() > size_t(maxPrefix)) first = prefix.size() - size_t(maxPrefix);
        tokens.insert(tokens.end(), prefix.begin() + std::ptrdiff_t(first), prefix.end());
    }

    result.sampleBegin = int(tokens.size());
    return result;
}

} // namespace hearsay
