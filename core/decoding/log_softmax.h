// Log-softmax over one logit row in float32 (as the reference computes it), shared by the
// timestamp rules, the token decoders and the probabilities reported to the user.
#pragma once

#include <span>

namespace hearsay {

// out[i] = x[i] - max - log(sum_j exp(x[j] - max)); -inf entries stay -inf. out may alias x.
void logSoftmax(std::span<const float> x, std::span<float> out);

// log(sum_i exp(x[i])) over a range, stable; -inf when every entry is -inf.
float logSumExp(std::span<const float> x);

} // namespace hearsay
