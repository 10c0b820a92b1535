// tiktoken's byte-pair merge loop, run per token to recover the merge that made it.
#include "core/model/bpe_merges.h"

#include <unordered_map>

namespace hearsay {

Result<std::vector<BpeMerge>> deriveBpeMerges(const std::vector<std::string>& tokens) {
    std::unordered_map<std::string, int> ranks;
    ranks.reserve(tokens.size() * 2);
    for (size_t id = 0; id < tokens.size(); ++id) ranks.emplace(tokens[id], int(id));

    std::vector<BpeMerge> merges;
    std::vector<std::string> parts;
    for (size_t id = 0; id < tokens.size(); ++id) {
        const std::string& token = tokens[id];
        if (token.size() < 2) continue;
        if (ranks.at(token) != int(id)) continue;  // a duplicate of a lower-ranked token: no merge of its own
        const int maxRank = int(id);
        parts.clear();
        for (char c : token) parts.emplace_back(1, c);
        while (parts.size() > 1) {
            int best = -1, bestRank = maxRank;
            for (size_t i = 0; i + 1 < parts.size(); ++i) {
                auto it = ranks.find(parts[i] + parts[i + 1]);
                if (it != ranks.end() && it->second < bestRank) {
                    bestRank = it->second;
                    best = int(i);
                }
            }
            if (best < 0) break;
            parts[size_t(best)] += parts[size_t(best) + 1];
            parts.erase(parts.begin() + best + 1);
        }
        if (parts.size() != 2) {
            return makeError("token " + std::to_string(id) + " cannot be built by merging two lower-ranked tokens (" +
                             std::to_string(parts.size()) + " parts remain)");
        }
        merges.push_back({parts[0], parts[1], maxRank});
    }
    return merges;
}

} // namespace hearsay
