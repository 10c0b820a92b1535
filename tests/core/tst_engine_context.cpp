// The text context limit: a maximal prompt followed by a forced decode up to n_text_ctx (448)
// positions works with every beam; one more token is a clean error that leaves the session
// usable. Run under the asan preset too: out-of-bounds cache writes would show there.
#include "engine_test_model.h"

#include <QtTest>

using namespace hearsay;

class TestEngineContext : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const WhisperModel> m_model = test::makeRandomModel(test::customConfig(32, 2, 2, 64), 5);
    std::shared_ptr<Backend> m_backend = test::cpuBackend(2);

    // <|startofprev|> + 223 prompt tokens + <|startoftranscript|><|en|><|transcribe|>: the
    // longest prompt the reference allows (n_text_ctx/2 - 1 prompt tokens).
    static std::vector<int> maximalPrompt(int salt) {
        std::vector<int> tokens = {50361};
        for (int i = 0; i < 223; ++i) tokens.push_back((i * 131 + salt * 17) % 50257);
        tokens.insert(tokens.end(), {50258, 50259, 50359});
        return tokens;
    }

private slots:
    void decodesUpToTheLimitThenFailsCleanly_data() {
        QTest::addColumn<bool>("selfCache");
        QTest::addColumn<bool>("crossCache");
        QTest::newRow("caches on") << true << true;
        QTest::newRow("self cache off") << false << true;
        QTest::newRow("cross cache off") << true << false;
    }
    void decodesUpToTheLimitThenFailsCleanly() {
        QFETCH(bool, selfCache);
        QFETCH(bool, crossCache);
        SessionOptions options;
        options.maxBeams = 2;
        options.selfAttentionCache = selfCache;
        options.crossAttentionCache = crossCache;
        auto created = InferenceSession::create(m_model, m_backend, options);
        QVERIFY(created.ok());
        InferenceSession& session = *created.value();
        QVERIFY(session.encode(test::syntheticMel(80, 128, 4)).ok());

        std::vector<std::vector<int>> beams = {maximalPrompt(1), maximalPrompt(2)};
        QCOMPARE(int(beams[0].size()), 227);
        std::vector<float> logits;
        // Force-feed tokens (one step per position) until both beams hold 448 positions.
        for (;;) {
            auto ok = session.decode(beams, logits);
            QVERIFY2(ok.ok(), ok.ok() ? "" : ok.message().c_str());
            QCOMPARE(logits.size(), size_t(2) * size_t(m_model->config().nVocab));
            if (beams[0].size() == 448) break;
            for (auto& beam : beams) beam.push_back(int(beam.size() * 7 % 50257));
        }
        const std::vector<float> atLimit = logits;
        if (selfCache) {
            QCOMPARE(session.cacheStats().positions, 448);
            QCOMPARE(session.cacheStats().selfInUse, session.cacheStats().selfAllocated);
        }

        // Position 448 does not exist: a clean error naming the limit, nothing written.
        std::vector<std::vector<int>> tooLong = beams;
        tooLong[1].push_back(1);
        auto error = session.decode(tooLong, logits);
        QVERIFY(!error.ok());
        QVERIFY2(error.message().find("448") != std::string::npos, error.message().c_str());

        // The session is still usable and the cache intact: the same 448 tokens give the same logits.
        QVERIFY(session.decode(beams, logits).ok());
        QCOMPARE(logits, atLimit);
        // And a shorter, diverging sequence re-runs from where it differs.
        std::vector<std::vector<int>> shorter = {std::vector<int>(beams[0].begin(), beams[0].begin() + 300), beams[1]};
        shorter[0].back() = 42;
        QVERIFY(session.decode(shorter, logits).ok());
    }

    void rejectsBadInput() {
        auto created = InferenceSession::create(m_model, m_backend, {});
        QVERIFY(created.ok());
        InferenceSession& session = *created.value();
        std::vector<float> logits;
        // Before encode(), wrong mel shapes, bad token ids, too many beams, empty beams.
        auto beforeEncode = session.decode({{50258}}, logits);
        QVERIFY(!beforeEncode.ok());
        QVERIFY(beforeEncode.message().find("encode") != std::string::npos);
        QVERIFY(!session.encode(test::syntheticMel(80, 3000, 1)).ok());  // model has 64 audio positions
        QVERIFY(!session.encode(test::syntheticMel(80, 127, 1)).ok());
        LogMel truncated = test::syntheticMel(80, 128, 1);
        truncated.data.resize(100);
        QVERIFY(!session.encode(truncated).ok());
        QVERIFY(session.encode(test::syntheticMel(80, 128, 1)).ok());
        QVERIFY(!session.decode({{50258, 51865}}, logits).ok());
        QVERIFY(!session.decode({{50258, -1}}, logits).ok());
        QVERIFY(!session.decode({{}}, logits).ok());
        QVERIFY(!session.decode({}, logits).ok());
        QVERIFY(!session.decode(std::vector<std::vector<int>>(6, {50258}), logits).ok());  // maxBeams 5
        QVERIFY(session.decode({{50258}}, logits).ok());
        // Bad reorders are reported by the next decode, once.
        session.reorderBeams({0, 7});
        QVERIFY(!session.decode({{50258}}, logits).ok());
        QVERIFY(session.decode({{50258}}, logits).ok());

        SessionOptions noBeams;
        noBeams.maxBeams = 0;
        QVERIFY(!InferenceSession::create(m_model, m_backend, noBeams).ok());
    }

    void rejectsMalformedModels() {
        // A weight with the wrong shape is named in the error, no crash.
        WhisperConfig config = test::customConfig(32, 2, 2, 64);
        auto good = test::makeRandomModel(config, 1);
        WhisperModel::Parts parts;
        parts.config = config;
        parts.weights = good->weights();
        parts.weights.decoderLayers[1].fc1.weight.shape = {64, 32};
        auto bad = std::make_shared<const WhisperModel>(std::move(parts));
        auto session = InferenceSession::create(bad, m_backend, {});
        QVERIFY(!session.ok());
        QVERIFY2(session.message().find("model.decoder.layers.1.fc1.weight") != std::string::npos, session.message().c_str());

        WhisperModel::Parts missing;
        missing.config = config;
        missing.weights = good->weights();
        missing.weights.encoderLn.beta = {};
        auto noBeta = InferenceSession::create(std::make_shared<const WhisperModel>(std::move(missing)), m_backend, {});
        QVERIFY(!noBeta.ok());
        QVERIFY2(noBeta.message().find("model.encoder.layer_norm.bias") != std::string::npos, noBeta.message().c_str());
    }
};

QTEST_APPLESS_MAIN(TestEngineContext)
#include "tst_engine_context.moc"
