// Token selection on scripted logits: greedy and seeded sampling, beam-search bookkeeping
// (candidates, sources, finished sequences, patience, finalize) and the length-normalised ranker.
// Only the pure search logic is driven by hand-made logits here; the real engine runs in
// tst_decoding_engine.
#include "core/decoding/beam_search_decoder.h"
#include "core/decoding/ctranslate2_beam_search.h"
#include "core/decoding/greedy_decoder.h"
#include "core/decoding/log_softmax.h"
#include "core/decoding/sequence_ranker.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace hearsay;

namespace {

constexpr int kVocab = 6;
constexpr int kEot = 5;
const float kInf = std::numeric_limits<float>::infinity();

// log-probabilities -> logits (identical up to the normaliser).
std::vector<float> row(std::initializer_list<double> probabilities) {
    std::vector<float> r;
    for (double p : probabilities) r.push_back(p > 0 ? float(std::log(p)) : -kInf);
    return r;
}

std::vector<float> rows(std::initializer_list<std::vector<float>> rs) {
    std::vector<float> all;
    for (auto& r : rs) all.insert(all.end(), r.begin(), r.end());
    return all;
}

} // namespace

class TestDecodingSearch : public QObject {
    Q_OBJECT
private slots:
    void logSoftmaxMatchesDefinition() {
        std::vector<float> x = {1.0f, 2.0f, -kInf, 0.5f};
        std::vector<float> out(4);
        logSoftmax(x, out);
        const double z = std::exp(1.0) + std::exp(2.0) + std::exp(0.5);
        QVERIFY(std::abs(out[1] - float(2.0 - std::log(z))) < 1e-6f);
        QVERIFY(std::isinf(out[2]));
        QVERIFY(std::abs(logSumExp(out) - 0.0f) < 1e-6f);
    }

    void greedyPicksArgmaxAndAccumulates() {
        GreedyDecoder decoder(0.0f, kEot);
        std::vector<std::vector<int>> tokens = {{9}, {9}};
        std::vector<float> sums = {0.0f, 0.0f};
        auto logits = rows({row({0.1, 0.6, 0.1, 0.1, 0.05, 0.05}), row({0.1, 0.1, 0.1, 0.1, 0.1, 0.5})});
        auto step = decoder.update(tokens, logits, kVocab, sums);
        QVERIFY(!step.completed);
        QVERIFY(step.sourceBeams.empty());
        QCOMPARE(tokens[0], (std::vector<int>{9, 1}));
        QCOMPARE(tokens[1], (std::vector<int>{9, kEot}));
        QVERIFY(std::abs(sums[0] - float(std::log(0.6))) < 1e-6f);
        QVERIFY(std::abs(sums[1] - float(std::log(0.5))) < 1e-6f);
        // A finished row stays finished and adds nothing, whatever its logits say.
        logits = rows({row({0.1, 0.1, 0.1, 0.1, 0.1, 0.5}), row({0.9, 0.02, 0.02, 0.02, 0.02, 0.02})});
        step = decoder.update(tokens, logits, kVocab, sums);
        QVERIFY(step.completed);
        QCOMPARE(tokens[1], (std::vector<int>{9, kEot, kEot}));
        QVERIFY(std::abs(sums[1] - float(std::log(0.5))) < 1e-6f);
        auto candidates = decoder.finalize(tokens, sums);
        QCOMPARE(candidates.size(), size_t(2));
        QCOMPARE(candidates[0].tokens, (std::vector<int>{9, 1, kEot, kEot}));
    }

    void argmaxTakesTheFirstMaximum() {
        std::vector<float> r = {1.0f, 3.0f, 3.0f, -kInf};
        QCOMPARE(GreedyDecoder::argmax(r), 1);
    }

    void samplingIsSeededAndFollowsTheDistribution() {
        auto probabilities = row({0.5, 0.3, 0.2, 0.0, 0.0, 0.0});
        // The inverse CDF on fixed uniforms.
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 1.0f, 0.0), 0);
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 1.0f, 0.49), 0);
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 1.0f, 0.51), 1);
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 1.0f, 0.81), 2);
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 1.0f, 0.999999), 2);  // never a -inf token
        // Temperature sharpens: at T = 0.25, p ∝ p^4: 0.0625 : 0.0081 : 0.0016 -> P(0) ≈ 0.866.
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 0.25f, 0.85), 0);
        QCOMPARE(GreedyDecoder::sampleIndex(probabilities, 1.0f, 0.85), 2);

        auto draw = [&](uint64_t seed) {
            GreedyDecoder decoder(1.0f, kEot, seed);
            std::vector<int> counts(kVocab, 0);
            for (int i = 0; i < 4000; ++i) {
                std::vector<std::vector<int>> tokens = {{0}};
                std::vector<float> sums = {0.0f};
                decoder.update(tokens, probabilities, kVocab, sums);
                ++counts[size_t(tokens[0][1])];
            }
            return counts;
        };
        auto a = draw(42), b = draw(42), c = draw(7);
        QCOMPARE(a, b);            // reproducible
        QVERIFY(a != c);           // and the seed matters
        QCOMPARE(a[3] + a[4] + a[5], 0);
        QVERIFY(std::abs(a[0] / 4000.0 - 0.5) < 0.04);
        QVERIFY(std::abs(a[1] / 4000.0 - 0.3) < 0.04);
        QVERIFY(std::abs(a[2] / 4000.0 - 0.2) < 0.04);
    }

    void topKOrdersByValueThenIndex() {
        std::vector<float> r = {0.1f, 0.5f, 0.5f, -kInf, 0.7f};
        auto top = topK(r, 3);
        QCOMPARE(top.size(), size_t(3));
        QCOMPARE(top[0].second, 4);
        QCOMPARE(top[1].second, 1);
        QCOMPARE(top[2].second, 2);
    }

    void beamSearchBookkeeping() {
        // beam 2: each beam proposes 3 continuations; the best 2 unfinished survive.
        BeamSearchDecoder decoder(2, kEot);
        decoder.reset();
        std::vector<std::vector<int>> tokens = {{9}, {9}};  // identical start rows
        std::vector<float> sums = {0.0f, 0.0f};
        auto first = row({0.5, 0.3, 0.1, 0.05, 0.03, 0.02});
        auto step = decoder.update(tokens, rows({first, first}), kVocab, sums);
        // Identical rows give identical candidates: the later row becomes the source.
        QCOMPARE(tokens, (std::vector<std::vector<int>>{{9, 0}, {9, 1}}));
        QCOMPARE(step.sourceBeams, (std::vector<int>{1, 1}));
        QVERIFY(std::abs(sums[0] - float(std::log(0.5))) < 1e-6f);
        QVERIFY(std::abs(sums[1] - float(std::log(0.3))) < 1e-6f);
        QVERIFY(!step.completed);

        // Beam 0 ([9,0]) now prefers EOT (finished), beam 1 continues strongly.
        auto r0 = row({0.05, 0.05, 0.1, 0.1, 0.1, 0.6});
        auto r1 = row({0.02, 0.02, 0.9, 0.02, 0.02, 0.02});
        step = decoder.update(tokens, rows({r0, r1}), kVocab, sums);
        // Scores: [9,0,eot]=log(.5*.6)=-1.20, [9,1,2]=log(.3*.9)=-1.31, [9,0,2..4]=log(.05)=-3.0, ...
        QCOMPARE(decoder.finished().size(), size_t(1));
        QCOMPARE(decoder.finished()[0].tokens, (std::vector<int>{9, 0, kEot}));
        QVERIFY(std::abs(decoder.finished()[0].sumLogprob - std::log(0.3)) < 1e-5);
        QCOMPARE(tokens[0], (std::vector<int>{9, 1, 2}));
        QCOMPARE(step.sourceBeams[0], 1);
        // Second survivor: the best remaining unfinished candidate, [9,0,2] (beam 0's 0.1, first in order).
        QCOMPARE(tokens[1], (std::vector<int>{9, 0, 2}));
        QCOMPARE(step.sourceBeams[1], 0);
        QVERIFY(!step.completed);

        // Both end: two finished sequences = beam size -> completed.
        auto end = row({0.01, 0.01, 0.01, 0.01, 0.01, 0.95});
        step = decoder.update(tokens, rows({end, end}), kVocab, sums);
        QVERIFY(step.completed);
        auto candidates = decoder.finalize(tokens, sums);
        QCOMPARE(candidates.size(), size_t(2));
        QCOMPARE(candidates[0].tokens, (std::vector<int>{9, 0, kEot}));
        QCOMPARE(candidates[1].tokens, (std::vector<int>{9, 1, 2, kEot}));
    }

    void patienceWaitsForMoreFinishedSequences() {
        BeamSearchDecoder patient(2, kEot, 2.0f);
        QCOMPARE(patient.maxCandidates(), 4);
        BeamSearchDecoder plain(2, kEot);
        QCOMPARE(plain.maxCandidates(), 2);
        std::vector<float> sums = {0.0f, 0.0f};
        std::vector<std::vector<int>> tokensA = {{9, 1}, {9, 2}}, tokensB = tokensA;
        std::vector<float> sumsA = sums, sumsB = sums;
        auto endish = row({0.2, 0.1, 0.05, 0.05, 0.1, 0.5});
        auto a = plain.update(tokensA, rows({endish, endish}), kVocab, sumsA);
        auto b = patient.update(tokensB, rows({endish, endish}), kVocab, sumsB);
        QVERIFY(a.completed);   // 2 finished >= 2
        QVERIFY(!b.completed);  // 2 finished < 4
    }

    void finalizeAddsLiveBeamsWhenTooFewFinished() {
        BeamSearchDecoder decoder(2, kEot);
        std::vector<std::vector<int>> tokens = {{9, 3}, {9, 4}};
        std::vector<float> sums = {-2.0f, -1.0f};
        auto candidates = decoder.finalize(tokens, sums);
        QCOMPARE(candidates.size(), size_t(2));
        QCOMPARE(candidates[0].tokens, (std::vector<int>{9, 4, kEot}));  // best live beam first
        QCOMPARE(candidates[0].sumLogprob, -1.0);
        QCOMPARE(candidates[1].tokens, (std::vector<int>{9, 3, kEot}));
    }

    // Two hypotheses end close together: OpenAI's rules finish both (each ranks above the last
    // surviving beam), CTranslate2's only the one among the best `beam` candidates.
    void ctranslate2RulesFinishOnlyTheTopCandidates() {
        // Beams [9,0] and [9,1] with equal scores. Candidates, best first: [9,0,2] 0.50,
        // [9,0,eot] 0.45, [9,1,eot] 0.40, [9,1,3] 0.35.
        auto r0 = row({0.0, 0.0, 0.50, 0.0, 0.05, 0.45});
        auto r1 = row({0.0, 0.0, 0.0, 0.35, 0.25, 0.40});
        std::vector<std::vector<int>> openaiTokens = {{9, 0}, {9, 1}}, ct2Tokens = openaiTokens;
        std::vector<float> openaiSums = {0.0f, 0.0f}, ct2Sums = openaiSums;

        BeamSearchDecoder openai(2, kEot);
        auto a = openai.update(openaiTokens, rows({r0, r1}), kVocab, openaiSums);
        QCOMPARE(openai.finished().size(), size_t(2));  // both end-of-texts rank above [9,1,3]
        QVERIFY(a.completed);
        QCOMPARE(openaiTokens, (std::vector<std::vector<int>>{{9, 0, 2}, {9, 1, 3}}));

        CTranslate2BeamSearchDecoder ct2(2, kEot);
        ct2.reset();
        auto start = row({0.5, 0.5, 0.0, 0.0, 0.0, 0.0});
        ct2.update(ct2Tokens, rows({start, start}), kVocab, ct2Sums);  // the first step (one row considered)
        ct2Tokens = {{9, 0}, {9, 1}};
        ct2Sums = {0.0f, 0.0f};
        auto b = ct2.update(ct2Tokens, rows({r0, r1}), kVocab, ct2Sums);
        // [9,0,eot] is second of the 2·beam = 4 candidates: finished; its slot goes to the next
        // candidate after the first two that does not end: [9,1,eot] is dropped, [9,1,3] taken.
        QVERIFY(!b.completed);
        QCOMPARE(ct2Tokens, (std::vector<std::vector<int>>{{9, 0, 2}, {9, 1, 3}}));
        QCOMPARE(b.sourceBeams, (std::vector<int>{0, 1}));
        auto candidates = ct2.finalize(ct2Tokens, ct2Sums);
        // One finished plus, at the length limit, the live beams.
        QCOMPARE(candidates.size(), size_t(3));
        QCOMPARE(candidates[0].tokens, (std::vector<int>{9, 0, kEot}));
        QVERIFY(std::abs(candidates[0].sumLogprob - std::log(0.45)) < 1e-5);
    }

    void ctranslate2RulesStartFromOneRow() {
        // At the first step every row is the same sequence: the 2·beam best of row 0 only.
        CTranslate2BeamSearchDecoder decoder(2, kEot);
        decoder.reset();
        std::vector<std::vector<int>> tokens = {{9}, {9}};
        std::vector<float> sums = {0.0f, 0.0f};
        auto first = row({0.5, 0.3, 0.1, 0.05, 0.03, 0.02});
        auto step = decoder.update(tokens, rows({first, first}), kVocab, sums);
        QCOMPARE(tokens, (std::vector<std::vector<int>>{{9, 0}, {9, 1}}));
        QCOMPARE(step.sourceBeams, (std::vector<int>{0, 0}));
        QVERIFY(!step.completed);
    }

    void rankerNormalisesLength() {
        // Long sequence: -3 over 6 tokens (-0.5/token); short: -1 over 1 token (-1/token).
        std::vector<int> lengths = {1, 6};
        std::vector<double> sums = {-1.0, -3.0};
        QCOMPARE(rankByLikelihood(lengths, sums, std::nullopt), 1);
        // alpha 0: no penalty at all -> the raw log-probability wins.
        QCOMPARE(rankByLikelihood(lengths, sums, 0.0f), 0);
        // alpha 1: penalties (5+1)/6 = 1 and (5+6)/6 = 1.83: -1 vs -1.64 -> short wins.
        QCOMPARE(rankByLikelihood(lengths, sums, 1.0f), 0);
        // Ties go to the first.
        QCOMPARE(rankByLikelihood({2, 2}, {-1.0, -1.0}, std::nullopt), 0);
    }
};

QTEST_APPLESS_MAIN(TestDecodingSearch)
#include "tst_decoding_search.moc"
