// Encoder runs of Hearsay and a peer in turns, and the median of the pairs' ratios.
#include "core/bench/encoder_pairs.h"

#include "core/util/json_text.h"

using nlohmann::json;

namespace hearsay {

double EncoderPairs::medianRatio() const {
    Samples ratios;
    for (const EncoderPair& p : pairs) ratios.values.push_back(p.ratio());
    return ratios.median();
}

Samples EncoderPairs::hearsayMs() const {
    Samples s;
    for (const EncoderPair& p : pairs) s.values.push_back(p.hearsayMs);
    return s;
}

Samples EncoderPairs::peerMs() const {
    Samples s;
    for (const EncoderPair& p : pairs) s.values.push_back(p.peerMs);
    return s;
}

Result<EncoderPairs> runEncoderPairs(int count, int warmup, const EncoderRun& hearsay, const EncoderRun& peer) {
    if (count < 1) return makeError("encoder pairs: the count must be positive");
    auto once = [](const EncoderRun& run, const char* who, double& ms) -> Result<void> {
        auto r = run();
        if (!r) return makeError(std::string(who) + ": " + r.message());
        if (!(r.value() > 0)) return makeError(std::string(who) + ": an encoder run took no time");
        ms = r.value();
        return {};
    };
    double unused = 0.0;
    for (int w = 0; w < warmup; ++w) {
        if (auto ok = once(hearsay, "Hearsay", unused); !ok) return ok.error();
        if (auto ok = once(peer, "the peer", unused); !ok) return ok.error();
    }
    EncoderPairs result;
    for (int i = 0; i < count; ++i) {
        EncoderPair pair;
        pair.peerFirst = i % 2 == 1;
        if (pair.peerFirst) {
            if (auto ok = once(peer, "the peer", pair.peerMs); !ok) return ok.error();
        }
        if (auto ok = once(hearsay, "Hearsay", pair.hearsayMs); !ok) return ok.error();
        if (!pair.peerFirst) {
            if (auto ok = once(peer, "the peer", pair.peerMs); !ok) return ok.error();
        }
        result.pairs.push_back(pair);
    }
    return result;
}

json toJson(const EncoderPairs& pairs) {
    json list = json::array();
    for (const EncoderPair& p : pairs.pairs) {
        json j;
        j["first"] = p.peerFirst ? "peer" : "hearsay";
        j["hearsayMs"] = p.hearsayMs;
        j["peerMs"] = p.peerMs;
        j["ratio"] = p.ratio();
        list.push_back(std::move(j));
    }
    json j;
    j["pairs"] = std::move(list);
    j["medianRatio"] = pairs.medianRatio();
    j["hearsayMs"] = toJson(pairs.hearsayMs());
    j["peerMs"] = toJson(pairs.peerMs());
    return j;
}

} // namespace hearsay
