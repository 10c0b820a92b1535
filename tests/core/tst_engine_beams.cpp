// Beams share one session: reorderBeams must move each beam's cached rows to its new place.
// After decoding several beams, reordering (with duplicates, permutations, fewer beams) and
// decoding on, the logits equal those of fresh sessions decoding the reordered sequences.
#include "engine_test_model.h"

#include <QtTest>

using namespace hearsay;

namespace {
using Beams = std::vector<std::vector<int>>;
}

class TestEngineBeams : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const WhisperModel> m_model = test::makeRandomModel(test::customConfig(48, 2, 3, 64), 21);
    std::shared_ptr<Backend> m_backend = test::cpuBackend(2);
    LogMel m_mel = test::syntheticMel(80, 128, 9);

    std::unique_ptr<InferenceSession> newSession(int beams, bool selfCache = true) {
        SessionOptions options;
        options.maxBeams = beams;
        options.selfAttentionCache = selfCache;
        auto session = InferenceSession::create(m_model, m_backend, options);
        if (!session) qFatal("%s", session.message().c_str());
        if (auto ok = session.value()->encode(m_mel); !ok) qFatal("%s", ok.message().c_str());
        return std::move(session).value();
    }

    // Logits of each sequence decoded alone, from scratch, without any cache history.
    std::vector<float> freshLogits(const Beams& beams) {
        std::vector<float> all, logits;
        auto session = newSession(1, false);
        for (const auto& beam : beams) {
            if (!session->decode({beam}, logits)) qFatal("fresh decode failed");
            all.insert(all.end(), logits.begin(), logits.end());
        }
        return all;
    }

private slots:
    void reorderCopiesTheRightRows_data() {
        QTest::addColumn<std::vector<int>>("source");
        QTest::newRow("duplicate and drop") << std::vector<int>{2, 0, 0};
        QTest::newRow("rotation") << std::vector<int>{1, 2, 0};
        QTest::newRow("all from one") << std::vector<int>{1, 1, 1};
        QTest::newRow("identity") << std::vector<int>{0, 1, 2};
        QTest::newRow("fewer beams") << std::vector<int>{2, 1};
    }
    void reorderCopiesTheRightRows() {
        QFETCH(std::vector<int>, source);
        auto session = newSession(3);
        // Three beams with different tokens (and different lengths) after a shared prefix.
        Beams beams = {{50258, 50259, 50359, 100, 200}, {50258, 50259, 50359, 300}, {50258, 50259, 50359, 400, 500, 600}};
        std::vector<float> logits;
        QVERIFY(session->decode(beams, logits).ok());
        for (int step = 0; step < 3; ++step) {
            for (size_t b = 0; b < beams.size(); ++b) beams[b].push_back(int(1000 + 37 * b + step));
            QVERIFY(session->decode(beams, logits).ok());
        }
        session->reorderBeams(source);
        Beams next;
        for (size_t b = 0; b < source.size(); ++b) {
            next.push_back(beams[size_t(source[b])]);
            next.back().push_back(int(2000 + b));  // each new beam continues differently
        }
        QVERIFY(session->decode(next, logits).ok());
        // Only the new token per beam ran: the prefixes came from the reordered cache.
        QCOMPARE(session->timings().tokensDecoded, 6 + 5 + 4 + 3 + 3 + 3 + int(source.size()));
        const double error = test::relativeError(logits, freshLogits(next));
        qInfo("relative difference to fresh decodes %.3g", error);
        QVERIFY(error < 1e-5);
        QCOMPARE(session->cacheStats().beams, int(source.size()));
    }

    void expandFromOneBeam() {
        // Beam search starts with one sequence, then fans out: reorder {0,0,0,0,0}.
        auto session = newSession(5);
        std::vector<float> logits;
        const std::vector<int> prompt = {50258, 50259, 50359, 11, 22};
        QVERIFY(session->decode({prompt}, logits).ok());
        session->reorderBeams({0, 0, 0, 0, 0});
        Beams beams(5, prompt);
        for (int b = 0; b < 5; ++b) beams[size_t(b)].push_back(700 + b);
        QVERIFY(session->decode(beams, logits).ok());
        QCOMPARE(session->timings().tokensDecoded, 5 + 5);
        QVERIFY(test::relativeError(logits, freshLogits(beams)) < 1e-5);
        const KvCacheStats stats = session->cacheStats();
        QCOMPARE(stats.beams, 5);
        QCOMPARE(stats.positions, 6);
        QCOMPARE(stats.selfInUse, size_t(2 * 2 * 5 * 6 * 48 * 4));  // K+V · layers · beams · positions · d · 4
    }

    void manyReordersStayConsistent() {
        // A beam search-like loop: decode, reorder by a fixed pattern, extend; compare at the end.
        auto session = newSession(4);
        Beams beams(4, std::vector<int>{50258, 50259, 50359});
        std::vector<float> logits;
        const std::vector<std::vector<int>> patterns = {{0, 0, 1, 1}, {3, 2, 1, 0}, {1, 1, 1, 2}, {0, 2, 2, 3}};
        for (int step = 0; step < 12; ++step) {
            for (size_t b = 0; b < beams.size(); ++b) beams[b].push_back(int(3000 + step * 10 + int(b)));
            QVERIFY(session->decode(beams, logits).ok());
            const auto& pattern = patterns[size_t(step) % patterns.size()];
            session->reorderBeams(pattern);
            Beams reordered;
            for (int s : pattern) reordered.push_back(beams[size_t(s)]);
            beams = reordered;
        }
        for (size_t b = 0; b < beams.size(); ++b) beams[b].push_back(9);
        QVERIFY(session->decode(beams, logits).ok());
        QVERIFY(test::relativeError(logits, freshLogits(beams)) < 1e-5);
    }
};

QTEST_APPLESS_MAIN(TestEngineBeams)
#include "tst_engine_beams.moc"
