// Rounds against the peers: ratios per round, their median, and the rounds' results pooled.
#include "core/bench/peer_rounds.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using nlohmann::json;

namespace hearsay {
namespace {

double median(std::vector<double> values) {
    Samples s;
    s.values = std::move(values);
    return s.median();
}

void append(Samples& to, const Samples& from) { to.values.insert(to.values.end(), from.values.begin(), from.values.end()); }

} // namespace

std::array<double, 4> figureMedians(const FixedWorkResult& r) {
    return {r.encoderMs.median(), r.decodeMsPerToken.median(), r.batchMsPerToken.median(), r.promptMsPerToken.median()};
}

double peerFigureMedian(const json& peer, const std::string& figure) {
    if (!peer.is_object() || !peer.contains("figures") || !peer["figures"].is_object()) return 0.0;
    const json& samples = peer["figures"].value(figure, json());
    return samples.is_object() && samples.contains("median") && samples["median"].is_number() ? samples["median"].get<double>()
                                                                                                 : 0.0;
}

json ratiosAgainstPeers(const FixedWorkResult& hearsay, const json& peersDocument) {
    json ratios = json::object();
    if (!peersDocument.is_object()) return ratios;
    const std::array<double, 4> ours = figureMedians(hearsay);
    const json peers = peersDocument.value("peers", json::object());
    for (const auto& [peer, data] : peers.items()) {
        for (size_t i = 0; i < kFixedWorkFigures.size(); ++i) {
            const double theirs = peerFigureMedian(data, kFixedWorkFigures[i]);
            ratios[peer][kFixedWorkFigures[i]] = theirs > 0 && ours[i] > 0 ? json(ours[i] / theirs) : json();
        }
    }
    return ratios;
}

json medianOfRatios(const std::vector<json>& roundRatios) {
    std::vector<std::string> peers;  // in the order the rounds first name them
    for (const json& round : roundRatios) {
        if (!round.is_object()) continue;
        for (const auto& [peer, figures] : round.items()) {
            if (std::find(peers.begin(), peers.end(), peer) == peers.end()) peers.push_back(peer);
        }
    }
    json result = json::object();
    for (const std::string& peer : peers) {
        for (const char* figure : kFixedWorkFigures) {
            std::vector<double> values;
            for (const json& round : roundRatios) {
                if (!round.is_object() || !round.contains(peer) || !round[peer].is_object()) continue;
                const json& ratio = round[peer].value(figure, json());
                if (ratio.is_number()) values.push_back(ratio.get<double>());
            }
            result[peer][figure] = values.empty() ? json() : json(median(values));
        }
    }
    return result;
}

json mergePeersDocuments(const std::vector<json>& documents) {
    json merged = json::object();
    json peers = json::object(), errors = json::object();
    for (const json& doc : documents) {
        if (!doc.is_object()) continue;
        for (const auto& [key, value] : doc.items()) {
            if (key != "peers" && key != "errors" && !merged.contains(key)) merged[key] = value;
        }
        const json docPeers = doc.value("peers", json::object()), docErrors = doc.value("errors", json::object());
        for (const auto& [peer, data] : docPeers.items()) {
            if (!data.is_object()) continue;
            if (!peers.contains(peer)) {
                peers[peer] = data;
                peers[peer]["figures"] = json::object();
                peers[peer]["rounds"] = 0;
            }
            json& entry = peers[peer];
            entry["rounds"] = entry["rounds"].get<int>() + 1;
            const json figures = data.value("figures", json::object());
            for (const auto& [figure, samples] : figures.items()) {
                if (!samples.is_object() || !samples.contains("samples") || !samples["samples"].is_array()) continue;
                json& into = entry["figures"][figure];
                if (!into.is_object()) into = {{"samples", json::array()}};
                for (const json& v : samples["samples"]) {
                    if (v.is_number()) into["samples"].push_back(v);
                }
            }
        }
        for (const auto& [peer, error] : docErrors.items()) {
            if (!errors.contains(peer)) errors[peer] = error;
        }
    }
    for (auto& [peer, entry] : peers.items()) {
        for (auto& [figure, into] : entry["figures"].items()) {
            Samples s;
            for (const json& v : into["samples"]) s.values.push_back(v.get<double>());
            into["median"] = s.median();
            into["min"] = s.minimum();
        }
        errors.erase(peer);  // measured in some round: its failures stay in their rounds' documents
    }
    merged["peers"] = std::move(peers);
    merged["errors"] = std::move(errors);
    return merged;
}

FixedWorkResult poolRounds(const std::vector<FixedWorkResult>& rounds) {
    FixedWorkResult pooled;
    for (const FixedWorkResult& r : rounds) {
        append(pooled.encoderMs, r.encoderMs);
        append(pooled.decodeMsPerToken, r.decodeMsPerToken);
        append(pooled.batchMsPerToken, r.batchMsPerToken);
        append(pooled.promptMsPerToken, r.promptMsPerToken);
        append(pooled.probeBytesPerSecond, r.probeBytesPerSecond);
        pooled.counts = r.counts;
    }
    return pooled;
}

} // namespace hearsay
