// The bench's peers in rounds (hearsay-cli bench --peers --rounds N): Hearsay's fixed work and
// the peers' fixed work run in turn, the order flipped every round, so that each round's ratio
// Hearsay/peer compares two runs made minutes apart at most, and a run's ratio is the median of
// its rounds'. On a shared machine the cores and the memory change speed from one minute to the
// next; two programs run once each, one after the other, can differ by that alone.
//
// A peers document is what scripts/bench/peers.py writes: {"peers": {name: {"figures": {figure:
// {"median", "min", "samples"}}, ...}}, "errors": {name: message}, ...}.
#pragma once

#include "core/bench/fixed_work.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <string>
#include <vector>

namespace hearsay {

// The fixed work's figures as the peers document and toJson(FixedWorkResult) name them, in the
// order of the bench's tables.
inline constexpr std::array<const char*, 4> kFixedWorkFigures = {"encoderMs", "decodeMsPerToken", "batchMsPerToken",
                                                                  "promptMsPerToken"};

// Hearsay's medians of the four figures, in kFixedWorkFigures' order.
std::array<double, 4> figureMedians(const FixedWorkResult& result);

// One peer's median of a figure in a peers document's entry; 0 when it was not measured.
double peerFigureMedian(const nlohmann::json& peer, const std::string& figure);

// {peer: {figure: Hearsay's median / the peer's}} for every peer the document measured; null
// where either side has no figure.
nlohmann::json ratiosAgainstPeers(const FixedWorkResult& hearsay, const nlohmann::json& peersDocument);

// The median over rounds of each peer's and figure's ratio (ratiosAgainstPeers of each round),
// over the rounds that have it; null where none has.
nlohmann::json medianOfRatios(const std::vector<nlohmann::json>& roundRatios);

// Several rounds' peers documents as one: each peer's figures with every round's samples in round
// order and their median and minimum, "rounds" how many rounds measured the peer, the rest of its
// entry from the first round that measured it; a peer's error kept only when no round measured it.
nlohmann::json mergePeersDocuments(const std::vector<nlohmann::json>& documents);

// Every round's samples of each figure (and of the bandwidth probe) in round order; the counts of
// the last round.
FixedWorkResult poolRounds(const std::vector<FixedWorkResult>& rounds);

} // namespace hearsay
