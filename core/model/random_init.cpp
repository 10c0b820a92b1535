// splitmix64-based deterministic weights (see random_init.h for the exact scheme).
#include "core/model/random_init.h"

namespace hearsay {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

float valueFrom(uint64_t base, uint64_t index, double mean, double stddev) {
    uint64_t z = base + (index + 1) * kGolden;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u = double(z >> 40) / 16777216.0;
    return float(mean + stddev * 1.7320508075688772 * (2.0 * u - 1.0));
}

} // namespace

uint64_t fnv1a64(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

float initValue(uint64_t seed, std::string_view name, uint64_t index, double mean, double stddev) {
    return valueFrom((seed * kGolden) ^ fnv1a64(name), index, mean, stddev);
}

void fillInitValues(uint64_t seed, std::string_view name, uint64_t first, uint64_t count, double mean,
                    double stddev, float* out) {
    const uint64_t base = (seed * kGolden) ^ fnv1a64(name);
    for (uint64_t i = 0; i < count; ++i) out[i] = valueFrom(base, first + i, mean, stddev);
}

} // namespace hearsay
