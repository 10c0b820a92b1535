// The reduced audio context (whisper.cpp's audio_ctx): a 1500-position model encoding only the
// first 2·N mel frames into N positions must compute exactly what a model built with
// n_audio_ctx = N computes on those frames (the same deterministic random weights: the first N
// positional rows are equal), which the reference tests check against transformers for any
// dimensions. Then: the cache switches and step graphs still give the same tokens, the cross
// cache holds N rows, windows of another length do not replay a step recorded for this one,
// and out-of-range requests are errors.
#include "engine_test_model.h"

#include <QtTest>

using namespace hearsay;

namespace {

const std::vector<int> kStart = {50258, 50259, 50359};  // <|startoftranscript|><|en|><|transcribe|>
constexpr int kSteps = 24;
constexpr int kPositions = 200;  // 4 s of audio

LogMel firstFrames(const LogMel& mel, int frames) {
    LogMel out;
    out.nMels = mel.nMels;
    out.frames = frames;
    out.data.resize(size_t(mel.nMels) * size_t(frames));
    for (int m = 0; m < mel.nMels; ++m)
        for (int f = 0; f < frames; ++f) out.data[size_t(m) * size_t(frames) + size_t(f)] = mel.at(m, f);
    return out;
}

struct Decoded {
    std::vector<int> tokens;
    std::vector<float> logits;
    std::vector<float> encoderOut;
    KvCacheStats stats;
};

} // namespace

class TestEngineAudioContext : public QObject {
    Q_OBJECT
    std::shared_ptr<const WhisperModel> m_full, m_small;
    std::shared_ptr<Backend> m_backend;
    std::vector<LogMel> m_mels;

    Decoded run(const std::shared_ptr<const WhisperModel>& model, const LogMel& mel, int audioContext, SessionOptions options = {}) {
        options.maxBeams = 1;
        auto session = InferenceSession::create(model, m_backend, options);
        if (!session) qFatal("%s", session.message().c_str());
        if (auto ok = session.value()->encode(mel, audioContext); !ok) qFatal("%s", ok.message().c_str());
        Decoded d;
        d.encoderOut = session.value()->encoderOutput();
        auto tokens = test::greedyDecode(*session.value(), kStart, kSteps, &d.logits);
        if (!tokens) qFatal("%s", tokens.message().c_str());
        d.tokens = tokens.value();
        d.stats = session.value()->cacheStats();
        return d;
    }

private slots:
    void initTestCase() {
        m_full = test::makeRandomModel(test::customConfig(64, 2, 4), 11);
        m_small = test::makeRandomModel(test::customConfig(64, 2, 4, kPositions), 11);
        m_backend = test::cpuBackend(2);
        std::string why;
        m_mels = test::speechClipMels(80, &why);
        // The clips are the repository's shared test data: missing ones are a failure.
        QVERIFY2(!m_mels.empty(), qPrintable(QString::fromStdString("no speech clips (../shared/data): " + why)));
    }

    void equalsAModelOfThatContext() {
        for (const LogMel& mel : m_mels) {
            const Decoded reduced = run(m_full, mel, kPositions);
            const Decoded small = run(m_small, firstFrames(mel, 2 * kPositions), 0);
            QCOMPARE(reduced.encoderOut.size(), size_t(kPositions) * 64);
            QCOMPARE(reduced.encoderOut.size(), small.encoderOut.size());
            const double encoderError = test::relativeError(reduced.encoderOut, small.encoderOut);
            const double logitError = test::relativeError(reduced.logits, small.logits);
            qInfo("encoder output relative difference %.3g, logits %.3g", encoderError, logitError);
            QVERIFY(encoderError < 1e-6);
            QVERIFY(logitError < 1e-6);
            QCOMPARE(reduced.tokens, small.tokens);
            // The cross cache holds N rows per layer (K and V, float32); allocated for all 1500.
            QCOMPARE(reduced.stats.crossInUse, size_t(2) * 2 * kPositions * 64 * sizeof(float));
            QCOMPARE(reduced.stats.crossAllocated, size_t(2) * 2 * 1500 * 64 * sizeof(float));
            // And it is not the full context's result.
            const Decoded full = run(m_full, mel, 0);
            QCOMPARE(full.encoderOut.size(), size_t(1500) * 64);
            QVERIFY(test::relativeError(full.logits, reduced.logits) > 1e-3);
        }
    }

    void switchesAndGraphsAgree() {
        const LogMel& mel = m_mels.front();
        const Decoded reference = run(m_full, mel, kPositions);
        for (auto [self, cross, graphs] : {std::tuple{true, false, true}, std::tuple{false, true, false},
                                           std::tuple{false, false, false}, std::tuple{true, true, false}}) {
            SessionOptions o;
            o.selfAttentionCache = self;
            o.crossAttentionCache = cross;
            o.stepGraphs = graphs;
            const Decoded other = run(m_full, mel, kPositions, o);
            QCOMPARE(other.tokens, reference.tokens);
            QVERIFY(test::relativeError(other.logits, reference.logits) < 1e-5);
        }
    }

    // One session, windows of alternating context lengths: each window decodes as a fresh
    // session would (a step recorded at one length is never replayed at another).
    void contextChangesBetweenWindows() {
        SessionOptions o;
        o.maxBeams = 1;
        auto session = InferenceSession::create(m_full, m_backend, o);
        QVERIFY(session);
        const LogMel& mel = m_mels.front();
        for (int context : {kPositions, 0, 120, kPositions, 1500}) {
            QVERIFY(session.value()->encode(mel, context));
            QCOMPARE(session.value()->audioContext(), context == 0 ? 1500 : context);
            std::vector<float> logits;
            auto tokens = test::greedyDecode(*session.value(), kStart, kSteps, &logits);
            QVERIFY(tokens);
            const Decoded fresh = run(m_full, mel, context);
            QCOMPARE(tokens.value(), fresh.tokens);
            QVERIFY(test::relativeError(logits, fresh.logits) < 1e-6);
        }
        QVERIFY(session.value()->timings().stepReplays > 0);
    }

    void outOfRangeIsAnError() {
        auto session = InferenceSession::create(m_full, m_backend, SessionOptions{});
        QVERIFY(session);
        for (int bad : {-1, 1501}) {
            auto ok = session.value()->encode(m_mels.front(), bad);
            QVERIFY(!ok);
            QVERIFY2(ok.message().find("audio context") != std::string::npos, ok.message().c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestEngineAudioContext)
#include "tst_engine_audio_context.moc"
