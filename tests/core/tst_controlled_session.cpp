// ControlledSession (core/engine) over a real engine session (random 64x2x2 model with the real
// vocabulary, from an Engine): switches requested through SessionControls from another thread
// reach the engine at the next decoder step and give the same logits, Cancel fails the next call
// with ErrorKind::Cancelled, the counters sum the calls, and the observer is rate-limited.
#include "engine_test_model.h"

#include "core/engine/engine.h"
#include "core/frontend/log_mel.h"
#include "core/frontend/pcm_wav.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <optional>
#include <thread>

using namespace hearsay;

class TestControlledSession : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::optional<Engine> m_engine;
    LogMel m_mel;

    std::unique_ptr<ControlledSession> makeSession(std::shared_ptr<SessionControls> controls) {
        SessionOptions options;
        options.maxBeams = 2;
        auto session = m_engine->createSession(options, std::move(controls));
        if (!session) qFatal("session: %s", session.message().c_str());
        return std::move(session).value();
    }

    static float maxDifference(const std::vector<float>& a, const std::vector<float>& b) {
        float worst = a.size() == b.size() ? 0.0f : INFINITY;
        for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
        return worst;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const std::string path = m_dir.filePath("model").toStdString();
        auto written = test::writeTestModel(path, "64x2x2", 1);
        QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
        EngineOptions options;
        options.backend = BackendKind::Cpu;
        auto engine = Engine::load(path, options);
        QVERIFY2(engine.ok(), engine.ok() ? "" : engine.message().c_str());
        m_engine = std::move(engine).value();
        auto samples = readPcm16Wav(std::string(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav");
        QVERIFY2(samples.ok(), samples.ok() ? "" : samples.message().c_str());
        m_mel = logMelSpectrogram(samples->data(), samples->size(), m_engine->model().config().nMels);
    }

    void switchesApplyAtTheNextStep() {
        auto controls = std::make_shared<SessionControls>();
        auto session = makeSession(controls);
        QCOMPARE(session->controls(), controls);
        QVERIFY(session->encode(m_mel).ok());
        const std::vector<int> sot = {50258, 50259, 50359};
        std::vector<std::vector<int>> tokens = {sot};
        std::vector<float> cached, uncached;
        QVERIFY(session->decode(tokens, cached).ok());
        QVERIFY(session->selfAttentionCache());
        QVERIFY(session->cacheStats().selfInUse > 0);

        // Requested from another thread; nothing changes until the worker's next call.
        std::thread([&] {
            controls->selfCache = false;
            controls->crossCache = false;
        }).join();
        QVERIFY(session->selfAttentionCache());
        tokens[0].push_back(440);
        QVERIFY(session->decode(tokens, uncached).ok());
        QVERIFY(!session->selfAttentionCache());
        QVERIFY(!session->crossAttentionCache());
        QCOMPARE(session->cacheStats().selfAllocated, size_t(0));
        QCOMPARE(session->cacheStats().crossAllocated, size_t(0));

        // The same step with both caches back on gives the same logits.
        controls->selfCache = true;
        controls->crossCache = true;
        std::vector<float> again;
        QVERIFY(session->decode(tokens, again).ok());
        QVERIFY(session->selfAttentionCache() && session->crossAttentionCache());
        QCOMPARE(again.size(), size_t(m_engine->model().config().nVocab));
        QVERIFY2(maxDifference(uncached, again) < 1e-3f, qPrintable(QString::number(maxDifference(uncached, again))));
        QVERIFY(!session->applyRequestedSwitches());  // already as asked

        const auto& c = session->counters();
        QCOMPARE(c.windows, 1);
        QCOMPARE(c.decodeCalls, 3);
        QVERIFY(c.encoderMs > 0.0 && c.lastEncoderMs == c.encoderMs);
        QVERIFY(c.decodeMs > 0.0);
        // Positions run: 3, then 4 without the self cache, then 4 again into an empty cache.
        QCOMPARE(c.tokensDecoded, 3 + 4 + 4);
        session->resetCounters();
        QCOMPARE(session->counters().decodeCalls, 0);
    }

    void givenControlsDecideTheStartingSwitches() {
        // The controls' wishes at creation win over the options', so a request made just before
        // is not lost and no cache is allocated only to be freed at the first call.
        auto controls = std::make_shared<SessionControls>();
        controls->selfCache = false;
        controls->stepGraphs = false;
        SessionOptions options;  // both caches and step graphs on
        options.maxBeams = 1;
        auto session = m_engine->createSession(options, controls);
        QVERIFY(session.ok());
        QVERIFY(!session.value()->selfAttentionCache());
        QVERIFY(session.value()->crossAttentionCache());
        QVERIFY(!session.value()->stepGraphs());
        QCOMPARE(session.value()->cacheStats().selfAllocated, size_t(0));

        // Without controls, the session makes its own holding the options' switches.
        options.crossAttentionCache = false;
        auto own = m_engine->createSession(options);
        QVERIFY(own.ok());
        QVERIFY(own.value()->controls() != nullptr);
        QVERIFY(own.value()->controls()->selfCache.load());
        QVERIFY(!own.value()->controls()->crossCache.load());
        QVERIFY(!own.value()->crossAttentionCache());
        QVERIFY(!own.value()->applyRequestedSwitches());
    }

    void cancelFailsTheNextCall() {
        auto controls = std::make_shared<SessionControls>();
        auto session = makeSession(controls);
        QVERIFY(session->encode(m_mel).ok());
        controls->cancel = true;
        std::vector<float> logits;
        auto decoded = session->decode({{50258}}, logits);
        QVERIFY(!decoded.ok());
        QCOMPARE(decoded.kind(), ErrorKind::Cancelled);
        QVERIFY(QString::fromStdString(decoded.message()).contains("cancelled"));
        auto encoded = session->encode(m_mel);
        QVERIFY(!encoded.ok());
        QCOMPARE(encoded.kind(), ErrorKind::Cancelled);
        QCOMPARE(session->counters().decodeCalls, 0);
        QCOMPARE(session->counters().windows, 1);
        controls->cancel = false;
        QVERIFY(session->decode({{50258}}, logits).ok());
    }

    void observerIsRateLimited() {
        auto controls = std::make_shared<SessionControls>();
        auto session = makeSession(controls);
        QVERIFY(session->encode(m_mel).ok());
        int calls = 0;
        session->setObserver([&] { ++calls; }, std::chrono::hours(1));
        std::vector<float> logits;
        for (int i = 0; i < 3; ++i) QVERIFY(session->decode({{50258}}, logits).ok());
        QCOMPARE(calls, 0);  // the interval has not passed
        session->setObserver([&] { ++calls; }, std::chrono::milliseconds(0));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        QVERIFY(session->decode({{50258}}, logits).ok());
        QCOMPARE(calls, 1);
    }
};

QTEST_APPLESS_MAIN(TestControlledSession)
#include "tst_controlled_session.moc"
