// Chooses the final sequence among beams or best-of-N samples: the highest log-probability after
// length normalisation (the reference's MaximumLikelihoodRanker).
#pragma once

#include <optional>
#include <vector>

namespace hearsay {

// lengths[i]: sampled tokens of candidate i (EOT excluded). lengthPenalty none: score = logprob /
// length; else score = logprob / ((5 + length) / 6)^alpha. Returns the first best index.
int rankByLikelihood(const std::vector<int>& lengths, const std::vector<double>& sumLogprobs,
                     std::optional<float> lengthPenalty);

} // namespace hearsay
