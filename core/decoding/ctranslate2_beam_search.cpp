// CTranslate2's beam search rules (see ctranslate2_beam_search.h; ctranslate2 src/decoding.cc).
#include "core/decoding/ctranslate2_beam_search.h"

#include "core/decoding/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hearsay {

CTranslate2BeamSearchDecoder::CTranslate2BeamSearchDecoder(int beamSize, int eot, float patience)
    : m_beamSize(beamSize), m_eot(eot),
      m_maxCandidates(std::max(1, int(std::round(float(beamSize) * (patience > 0.0f ? patience : 1.0f))))) {}

void CTranslate2BeamSearchDecoder::reset() {
    m_finished.clear();
    m_firstStep = true;
}

DecoderStep CTranslate2BeamSearchDecoder::update(std::vector<std::vector<int>>& tokens, std::span<const float> logits,
                                                 int nVocab, std::vector<float>& sumLogprobs) {
    // Cumulative scores of every (beam, token); at the first step the beams are one sequence, so
    // only the first is considered.
    const size_t rows = m_firstStep ? 1 : tokens.size();
    m_firstStep = false;
    std::vector<float> scores(rows * size_t(nVocab));
    for (size_t j = 0; j < rows; ++j) {
        std::span<float> row(scores.data() + j * size_t(nVocab), size_t(nVocab));
        logSoftmax(logits.subspan(j * size_t(nVocab), size_t(nVocab)), row);
        for (float& s : row) s += sumLogprobs[j];
    }
    const size_t candidates = std::min(scores.size(), size_t(2 * m_beamSize));
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(candidates), order.end(), [&](size_t a, size_t b) {
        if (scores[a] != scores[b]) return scores[a] > scores[b];
        return a < b;
    });
    auto sourceOf = [&](size_t c) { return int(order[c] / size_t(nVocab)); };
    auto tokenOf = [&](size_t c) { return int(order[c] % size_t(nVocab)); };

    DecoderStep step;
    std::vector<std::vector<int>> next;
    std::vector<float> nextScores;
    size_t secondary = size_t(m_beamSize);  // where replacements for finished slots are taken from
    for (size_t k = 0; k < size_t(m_beamSize) && k < candidates; ++k) {
        size_t chosen = k;
        if (tokenOf(k) == m_eot) {
            std::vector<int> finished = tokens[size_t(sourceOf(k))];
            finished.push_back(m_eot);
            m_finished.push_back({std::move(finished), double(scores[order[k]])});
            for (size_t j = secondary; j < candidates; ++j) {
                if (tokenOf(j) != m_eot) {
                    chosen = j;
                    secondary = j + 1;
                    break;
                }
            }
        }
        std::vector<int> sequence = tokens[size_t(sourceOf(chosen))];
        sequence.push_back(tokenOf(chosen));
        next.push_back(std::move(sequence));
        nextScores.push_back(scores[order[chosen]]);
        step.sourceBeams.push_back(sourceOf(chosen));
    }
    tokens = std::move(next);
    sumLogprobs.assign(nextScores.begin(), nextScores.end());
    step.completed = int(m_finished.size()) >= m_maxCandidates;
    return step;
}

std::vector<DecodedCandidate> CTranslate2BeamSearchDecoder::finalize(const std::vector<std::vector<int>>& tokens,
                                                                     const std::vector<float>& sumLogprobs) {
    std::vector<DecodedCandidate> result = m_finished;
    if (int(m_finished.size()) < m_maxCandidates) {
        for (size_t j = 0; j < tokens.size(); ++j) {
            std::vector<int> sequence = tokens[j];
            if (sequence.empty() || sequence.back() != m_eot) sequence.push_back(m_eot);
            result.push_back({std::move(sequence), double(sumLogprobs[j])});
        }
    }
    return result;
}

} // namespace hearsay
