// The two cache switches change speed and memory, never results: all four combinations give
// the same tokens and logits (within 1e-5 relative) over 40 steps, on the three speech clips,
// also when the switches are flipped in the middle of a sequence. The steps are no-repeat greedy
// (test::distinctGreedyDecode): a random model under plain greedy repeats two or three tokens,
// and four runs agreeing on such a sequence would prove little.
#include "engine_test_model.h"

#include <QtTest>

#include <chrono>
#include <set>
#include <thread>

using namespace hearsay;

namespace {

const std::vector<int> kStart = {50258, 50259, 50359};  // <|startoftranscript|><|en|><|transcribe|>
constexpr int kSteps = 40;

struct Run {
    std::vector<int> tokens;
    std::vector<float> logits;  // every step's logits, concatenated
};

} // namespace

class TestEngineSwitches : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const WhisperModel> m_model;
    std::shared_ptr<Backend> m_backend;
    std::vector<LogMel> m_mels;

    Run run(bool selfCache, bool crossCache, const LogMel& mel) {
        SessionOptions options;
        options.maxBeams = 1;
        options.selfAttentionCache = selfCache;
        options.crossAttentionCache = crossCache;
        auto session = InferenceSession::create(m_model, m_backend, options);
        if (!session) qFatal("%s", session.message().c_str());
        if (auto ok = session.value()->encode(mel); !ok) qFatal("%s", ok.message().c_str());
        Run result;
        auto tokens = test::distinctGreedyDecode(*session.value(), kStart, kSteps, &result.logits);
        if (!tokens) qFatal("%s", tokens.message().c_str());
        result.tokens = tokens.value();
        // With a switch off, its cache holds no memory.
        const KvCacheStats stats = session.value()->cacheStats();
        if ((stats.selfAllocated == 0) == selfCache || (stats.crossAllocated == 0) == crossCache) {
            qFatal("cache allocation does not follow the switches");
        }
        return result;
    }

private slots:
    void initTestCase() {
        m_model = test::makeRandomModel(test::customConfig(64, 2, 4), 11);
        m_backend = test::cpuBackend(2);
        // Real speech (the three shared clips) through the C++ frontend.
        std::string why;
        m_mels = test::speechClipMels(80, &why);
        // The clips are the repository's shared test data: missing ones are a failure.
        QVERIFY2(!m_mels.empty(), qPrintable(QString::fromStdString("no speech clips (../shared/data): " + why)));
    }

    void allCombinationsAgree() {
        for (size_t clip = 0; clip < m_mels.size(); ++clip) {
            const Run reference = run(true, true, m_mels[clip]);
            QCOMPARE(int(reference.tokens.size()), int(kStart.size()) + kSteps);
            std::set<int> distinct(reference.tokens.begin() + int(kStart.size()), reference.tokens.end());
            qInfo("clip %zu: %zu distinct tokens in %d steps", clip, distinct.size(), kSteps);
            QCOMPARE(int(distinct.size()), kSteps);
            for (auto [selfCache, crossCache] : {std::pair{true, false}, std::pair{false, true}, std::pair{false, false}}) {
                const Run other = run(selfCache, crossCache, m_mels[clip]);
                const double error = test::relativeError(other.logits, reference.logits);
                qInfo("clip %zu self %d cross %d: logits relative difference %.3g", clip, selfCache, crossCache, error);
                QCOMPARE(other.tokens, reference.tokens);
                QVERIFY(error < 1e-5);
            }
        }
        // The inputs must matter: different clips decode differently.
        QVERIFY(run(true, true, m_mels[0]).logits != run(true, true, m_mels[1]).logits);
    }

    void flippingMidSequence() {
        const Run reference = run(true, true, m_mels[2]);
        SessionOptions options;
        options.maxBeams = 1;
        auto session = InferenceSession::create(m_model, m_backend, options);
        QVERIFY(session.ok());
        InferenceSession& s = *session.value();
        QVERIFY(s.encode(m_mels[2]).ok());
        std::vector<int> tokens = kStart;
        std::vector<float> logits, all;
        for (int step = 0; step < kSteps; ++step) {
            // Cycle through the four states every 5 steps.
            const int state = (step / 5) % 4;
            s.setSelfAttentionCache(state == 0 || state == 3);
            s.setCrossAttentionCache(state == 0 || state == 1);
            QCOMPARE(s.selfAttentionCache(), state == 0 || state == 3);
            QVERIFY(s.decode({tokens}, logits).ok());
            all.insert(all.end(), logits.begin(), logits.end());
            tokens.push_back(test::bestUnusedToken(logits, tokens));
        }
        QCOMPARE(tokens, reference.tokens);
        QVERIFY(test::relativeError(all, reference.logits) < 1e-5);
    }

    void threadCountChangesWhileDecoding() {
        // Two sessions share one backend; one decodes on a worker thread while the thread
        // count of the backend changes underneath it. Results stay those of a plain run.
        const Run reference = run(true, true, m_mels[1]);
        auto backend = test::cpuBackend(2);
        auto created = InferenceSession::create(m_model, backend, {});
        QVERIFY(created.ok());
        InferenceSession& session = *created.value();
        QVERIFY(session.encode(m_mels[1]).ok());
        std::vector<float> logits;
        Result<std::vector<int>> tokens = makeError("not run");
        std::thread worker([&] { tokens = test::distinctGreedyDecode(session, kStart, kSteps, &logits); });
        for (int i = 0; i < 30; ++i) {
            backend->setThreads(1 + i % 3);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        worker.join();
        QVERIFY(tokens.ok());
        QCOMPARE(tokens.value(), reference.tokens);
        QVERIFY(test::relativeError(logits, reference.logits) < 1e-5);
    }
};

QTEST_APPLESS_MAIN(TestEngineSwitches)
#include "tst_engine_switches.moc"
