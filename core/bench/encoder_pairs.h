// The encoders of Hearsay and of one peer in pairs that take turns (hearsay-cli bench
// --encoder-pairs N): one encoder run of each program a pair, the two runs seconds apart, the
// peer first in every second pair, each program's model kept loaded throughout. On a shared
// machine whose cores change speed from one minute to the next, a ratio of two runs made seconds
// apart measures the programs; the fixed work's rounds (peer_rounds.h) compare runs minutes apart.
// The figure is the median of the pairs' ratios.
#pragma once

#include "core/bench/fixed_work.h"
#include "core/util/result.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <string>
#include <vector>

namespace hearsay {

struct EncoderPair {
    bool peerFirst = false;
    double hearsayMs = 0.0;
    double peerMs = 0.0;
    double ratio() const { return peerMs > 0 ? hearsayMs / peerMs : 0.0; }
};

struct EncoderPairs {
    std::vector<EncoderPair> pairs;
    double medianRatio() const;  // 0 when there are none
    Samples hearsayMs() const;   // every pair's, in pair order
    Samples peerMs() const;
};

// One encoder run of a program, timed by whoever runs it; its milliseconds or why it failed.
using EncoderRun = std::function<Result<double>()>;

// `warmup` untimed runs of each program (Hearsay's first), then `count` pairs, the peer first in
// pairs 2, 4, …: the runs go H P, P H, H P, … so that a steady drift of the machine favours
// each program in every second pair. The first failure of either program ends it.
Result<EncoderPairs> runEncoderPairs(int count, int warmup, const EncoderRun& hearsay, const EncoderRun& peer);

// {"pairs": [{"first", "hearsayMs", "peerMs", "ratio"}], "medianRatio", "hearsayMs", "peerMs"}
// (the last two as toJson(Samples)).
nlohmann::json toJson(const EncoderPairs& pairs);

} // namespace hearsay
