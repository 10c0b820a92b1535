// Beam search bookkeeping: candidates, ranking, finished sequences, patience.
#include "core/decoding/beam_search_decoder.h"

#include "core/decoding/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace hearsay {

std::vector<std::pair<float, int>> topK(std::span<const float> row, int k) {
    std::vector<int> index(row.size());
    std::iota(index.begin(), index.end(), 0);
    k = std::min<int>(k, int(row.size()));
    std::partial_sort(index.begin(), index.begin() + k, index.end(), [&](int a, int b) {
        if (row[size_t(a)] != row[size_t(b)]) return row[size_t(a)] > row[size_t(b)];
        return a < b;
    });
    std::vector<std::pair<float, int>> result;
    for (int i = 0; i < k; ++i) result.emplace_back(row[size_t(index[size_t(i)])], index[size_t(i)]);
    return result;
}

BeamSearchDecoder::BeamSearchDecoder(int beamSize, int eot, float patience)
    : m_beamSize(beamSize), m_eot(eot),
      m_maxCandidates(int(std::nearbyint(double(beamSize) * double(patience > 0.0f ? patience : 1.0f)))) {
    if (m_maxCandidates < 1) m_maxCandidates = 1;
}

void BeamSearchDecoder::reset() { m_finished.clear(); }

DecoderStep BeamSearchDecoder::update(std::vector<std::vector<int>>& tokens, std::span<const float> logits,
                                      int nVocab, std::vector<float>& sumLogprobs) {
    struct Candidate {
        std::vector<int> sequence;
        float score;
        int source;
    };
    // Candidates keyed by sequence: a repeated sequence (identical beams) keeps its first position
    // and takes the later score and source, as a Python dict update does.
    std::vector<Candidate> candidates;
    std::map<std::vector<int>, size_t> positionOf;
    std::vector<float> logprobs(static_cast<size_t>(nVocab));
    for (size_t j = 0; j < tokens.size(); ++j) {
        logSoftmax(logits.subspan(j * size_t(nVocab), size_t(nVocab)), logprobs);
        for (auto [logprob, token] : topK(logprobs, m_beamSize + 1)) {
            std::vector<int> sequence = tokens[j];
            sequence.push_back(token);
            const float score = sumLogprobs[j] + logprob;
            auto [it, inserted] = positionOf.emplace(sequence, candidates.size());
            if (inserted) {
                candidates.push_back({std::move(sequence), score, int(j)});
            } else {
                candidates[it->second].score = score;
                candidates[it->second].source = int(j);
            }
        }
    }

    std::vector<size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return candidates[a].score > candidates[b].score; });

    std::vector<std::vector<int>> nextTokens;
    std::vector<float> nextSums;
    DecoderStep step;
    std::vector<size_t> newlyFinished;  // already in descending score order
    for (size_t i : order) {
        if (candidates[i].sequence.back() == m_eot) {
            newlyFinished.push_back(i);
        } else {
            nextTokens.push_back(std::move(candidates[i].sequence));
            nextSums.push_back(candidates[i].score);
            step.sourceBeams.push_back(candidates[i].source);
            if (int(nextTokens.size()) == m_beamSize) break;
        }
    }
    tokens = std::move(nextTokens);
    for (size_t k = 0; k < nextSums.size(); ++k) sumLogprobs[k] = nextSums[k];

    for (size_t i : newlyFinished) {
        if (int(m_finished.size()) >= m_maxCandidates) break;  // the candidate list is full
        m_finished.push_back({candidates[i].sequence, double(candidates[i].score)});
    }
    step.completed = int(m_finished.size()) >= m_maxCandidates;
    return step;
}

std::vector<DecodedCandidate> BeamSearchDecoder::finalize(const std::vector<std::vector<int>>& tokens,
                                                          const std::vector<float>& sumLogprobs) {
    std::vector<DecodedCandidate> result = m_finished;
    if (int(result.size()) < m_beamSize) {
        // Best live beams first (a stable ascending sort reversed, as np.argsort(...)[::-1]).
        std::vector<size_t> order(tokens.size());
        std::iota(order.begin(), order.end(), size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sumLogprobs[a] < sumLogprobs[b]; });
        std::reverse(order.begin(), order.end());
        for (size_t j : order) {
            std::vector<int> sequence = tokens[j];
            sequence.push_back(m_eot);
            auto same = std::find_if(result.begin(), result.end(), [&](auto& c) { return c.tokens == sequence; });
            if (same != result.end())
                same->sumLogprob = double(sumLogprobs[j]);
            else
                result.push_back({std::move(sequence), double(sumLogprobs[j])});
            if (int(result.size()) >= m_beamSize) break;
        }
    }
    return result;
}

} // namespace hearsay
