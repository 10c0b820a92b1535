// The forced decoder pass word timestamps read (InferenceSession::forcedPass) on a random model:
// its next-token probabilities are those of decode() on each prefix (a softmax over the text
// vocabulary alone); its scores do not depend on the cross-attention cache, and fewer frames give
// the first columns of more; it leaves the decoder state of the beams as it was; bad requests are
// clear errors.
#include "engine_test_model.h"

#include <QtTest>

#include <cmath>

using namespace hearsay;

namespace {

const std::vector<int> kStart = {50258, 50259, 50359};  // <|startoftranscript|><|en|><|transcribe|>
constexpr int kNoTimestamps = 50363, kEot = 50257;

ForcedPassRequest request(int frames) {
    ForcedPassRequest r;
    r.tokens = kStart;
    r.tokens.push_back(kNoTimestamps);
    for (int t : {400, 1200, 286, 7000, 13, 5000, 220, 30000, 11, 764}) r.tokens.push_back(t);
    r.tokens.push_back(kEot);
    r.heads = {{0, 1}, {1, 3}, {1, 0}};
    r.frames = frames;
    r.firstRow = int(kStart.size());
    r.probabilityRows = 10;
    r.textVocabulary = kEot;
    return r;
}

} // namespace

class TestForcedPass : public QObject {
    Q_OBJECT

    std::shared_ptr<const WhisperModel> m_model;
    std::shared_ptr<Backend> m_backend;
    LogMel m_mel;

    std::unique_ptr<InferenceSession> session(bool crossCache) {
        SessionOptions options;
        options.maxBeams = 2;
        options.crossAttentionCache = crossCache;
        auto s = InferenceSession::create(m_model, m_backend, options);
        if (!s) qFatal("%s", s.message().c_str());
        if (auto ok = s.value()->encode(m_mel); !ok) qFatal("%s", ok.message().c_str());
        return std::move(s).value();
    }

private slots:
    void initTestCase() {
        m_model = test::makeRandomModel(test::customConfig(64, 2, 4), 11);
        m_backend = test::cpuBackend(2);
        m_mel = test::syntheticMel(80, 3000, 5);
    }

    void probabilitiesAreThoseOfDecode() {
        auto s = session(true);
        const ForcedPassRequest r = request(700);
        auto pass = s->forcedPass(r);
        QVERIFY2(pass, pass ? "" : pass.message().c_str());
        QCOMPARE(pass->rows, int(r.tokens.size()));
        QCOMPARE(pass->scores.size(), r.heads.size() * r.tokens.size() * size_t(700));
        QCOMPARE(int(pass->nextTokenProbabilities.size()), r.probabilityRows);
        std::vector<float> logits;
        for (int i = 0; i < r.probabilityRows; ++i) {
            const size_t row = size_t(r.firstRow + i);
            QVERIFY(s->decode({std::vector<int>(r.tokens.begin(), r.tokens.begin() + std::ptrdiff_t(row) + 1)}, logits));
            const float top = *std::max_element(logits.begin(), logits.begin() + kEot);
            double sum = 0.0;
            for (int v = 0; v < kEot; ++v) sum += std::exp(double(logits[size_t(v)] - top));
            const double expected = std::exp(double(logits[size_t(r.tokens[row + 1])] - top)) / sum;
            QVERIFY2(std::abs(pass->nextTokenProbabilities[size_t(i)] - expected) <= 1e-5 * std::max(1.0, expected),
                     qPrintable(QString("row %1: %2, decode() %3").arg(row).arg(pass->nextTokenProbabilities[size_t(i)]).arg(expected)));
        }
    }

    void scoresDoNotDependOnTheCrossCache() {
        auto on = session(true), off = session(false);
        auto a = on->forcedPass(request(700)), b = off->forcedPass(request(700));
        QVERIFY(a && b);
        QVERIFY(a->scores == b->scores);
        QVERIFY(a->nextTokenProbabilities == b->nextTokenProbabilities);
        // Switched off between passes of one session: the same again.
        on->setCrossAttentionCache(false);
        auto c = on->forcedPass(request(700));
        QVERIFY(c);
        QVERIFY(c->scores == a->scores);
        // More frames: the same first columns; the heads differ from each other.
        auto wide = on->forcedPass(request(1500));
        QVERIFY(wide);
        const size_t rows = size_t(a->rows);
        for (size_t h = 0; h < 3; ++h)
            for (size_t r = 0; r < rows; ++r)
                for (size_t f = 0; f < 700; ++f)
                    QCOMPARE(wide->scores[(h * rows + r) * 1500 + f], a->scores[(h * rows + r) * 700 + f]);
        QVERIFY(!std::equal(a->scores.begin(), a->scores.begin() + std::ptrdiff_t(rows * 700), a->scores.begin() + std::ptrdiff_t(rows * 700)));
    }

    // A forced pass in the middle of a decode changes none of its logits.
    void decoderStateIsKept() {
        auto plain = session(true), forced = session(true);
        std::vector<int> tokens = kStart;
        std::vector<float> a, b;
        for (int step = 0; step < 8; ++step) {
            QVERIFY(plain->decode({tokens, tokens}, a));
            if (step == 3) QVERIFY(forced->forcedPass(request(900)));
            QVERIFY(forced->decode({tokens, tokens}, b));
            QVERIFY(a == b);
            tokens.push_back(test::bestUnusedToken(std::vector<float>(a.begin(), a.begin() + 51865), tokens));
        }
    }

    void badRequestsAreClearErrors() {
        SessionOptions options;
        options.maxBeams = 1;
        auto fresh = InferenceSession::create(m_model, m_backend, options);
        QVERIFY(fresh);
        auto none = fresh.value()->forcedPass(request(10));
        QVERIFY(!none && none.message().find("encoded") != std::string::npos);
        auto s = session(true);
        ForcedPassRequest r = request(100);
        r.heads = {{2, 0}};
        auto badHead = s->forcedPass(r);
        QVERIFY(!badHead && badHead.message().find("alignment head") != std::string::npos);
        r = request(0);
        QVERIFY(!s->forcedPass(r));
        r = request(100);
        r.probabilityRows = int(r.tokens.size());
        QVERIFY(!s->forcedPass(r));
        r = request(100);
        r.tokens.push_back(70000);
        auto badToken = s->forcedPass(r);
        QVERIFY(!badToken && badToken.message().find("vocabulary") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestForcedPass)
#include "tst_forced_pass.moc"
