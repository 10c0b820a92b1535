// Length-normalised maximum likelihood ranking of candidate sequences.
#include "core/decoding/sequence_ranker.h"

#include <cmath>
#include <limits>

namespace hearsay {

int rankByLikelihood(const std::vector<int>& lengths, const std::vector<double>& sumLogprobs,
                     std::optional<float> lengthPenalty) {
    int best = 0;
    double bestScore = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < lengths.size() && i < sumLogprobs.size(); ++i) {
        const double length = double(lengths[i]);
        const double penalty = lengthPenalty ? std::pow((5.0 + length) / 6.0, double(*lengthPenalty)) : length;
        double score = penalty > 0.0 ? sumLogprobs[i] / penalty : -std::numeric_limits<double>::infinity();
        if (std::isnan(score)) score = -std::numeric_limits<double>::infinity();
        if (i == 0 || score > bestScore) {
            best = int(i);
            bestScore = score;
        }
    }
    return best;
}

} // namespace hearsay
