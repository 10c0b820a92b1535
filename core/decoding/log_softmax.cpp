// Numerically stable log-softmax and log-sum-exp in float32.
#include "core/decoding/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hearsay {

float logSumExp(std::span<const float> x) {
    if (x.empty()) return -std::numeric_limits<float>::infinity();
    const float m = *std::max_element(x.begin(), x.end());
    if (!std::isfinite(m)) return m;  // all -inf (or +inf/NaN, passed through)
    double sum = 0.0;
    for (float v : x) sum += double(std::exp(v - m));
    return m + float(std::log(sum));
}

void logSoftmax(std::span<const float> x, std::span<float> out) {
    const float normaliser = logSumExp(x);
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] - normaliser;
}

} // namespace hearsay
