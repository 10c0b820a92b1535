// End to end: an InferenceSession on a random 64x2x2 model (d 64, 2 layers, 2 heads, the real
// vocabulary size) on the CUDA backend against the same session on CpuBackend: encoder output
// and every step's logits within 1e-4 relative and identical greedy tokens over 20 steps, for
// all four cache-switch combinations; and five beams with a reorder. Step graphs: the same
// greedy and beam decoding with the decode step replayed as a CUDA graph against the GPU's
// op-by-op run (≤ 1e-6) and the CPU (1e-4), with the counters proving the graph path ran.
#include "cuda_test_support.h"

#include "kernels/device_info.h"

#include <QtTest>

using namespace hearsay;

namespace {

const std::vector<int> kStart = {50258, 50259, 50359};  // <|startoftranscript|><|en|><|transcribe|>
constexpr int kSteps = 20;
constexpr double kTolerance = 1e-4;

struct Run {
    std::vector<int> tokens;
    std::vector<float> logits;  // every step's, concatenated
    std::vector<float> encoderOut;
};

} // namespace

class TestCudaSession : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const WhisperModel> m_model;
    std::shared_ptr<Backend> m_cpu;
    std::shared_ptr<Backend> m_gpu;
    LogMel m_mel;

    Run run(const std::shared_ptr<Backend>& backend, bool selfCache, bool crossCache, bool graphs = true,
            SessionTimings* timings = nullptr) {
        SessionOptions options;
        options.maxBeams = 1;
        options.selfAttentionCache = selfCache;
        options.crossAttentionCache = crossCache;
        options.stepGraphs = graphs;
        auto session = InferenceSession::create(m_model, backend, options);
        if (!session) qFatal("%s", session.message().c_str());
        if (auto ok = session.value()->encode(m_mel); !ok) qFatal("%s", ok.message().c_str());
        Run result;
        auto tokens = test::greedyDecode(*session.value(), kStart, kSteps, &result.logits);
        if (!tokens) qFatal("%s", tokens.message().c_str());
        result.tokens = tokens.value();
        result.encoderOut = session.value()->encoderOutput();
        if (timings) *timings = session.value()->timings();
        return result;
    }

private slots:
    void initTestCase() {
        if (const QString why = test::missingGpuReason(); !why.isEmpty()) QSKIP(qPrintable(why));
        auto gpu = createBackend(BackendKind::Cuda);
        QVERIFY2(gpu.ok(), gpu.ok() ? "" : gpu.message().c_str());
        m_gpu = gpu.value();
        m_cpu = test::cpuBackend(2);
        m_model = test::makeRandomModel(test::customConfig(64, 2, 2), 11);
        m_mel = test::syntheticMel(80, 3000, 1);
    }

    void greedyMatchesCpu_data() {
        QTest::addColumn<bool>("selfCache");
        QTest::addColumn<bool>("crossCache");
        for (bool selfCache : {true, false}) {
            for (bool crossCache : {true, false}) {
                QTest::addRow("self %d cross %d", selfCache, crossCache) << selfCache << crossCache;
            }
        }
    }

    void greedyMatchesCpu() {
        QFETCH(bool, selfCache);
        QFETCH(bool, crossCache);
        const Run expected = run(m_cpu, selfCache, crossCache);
        const Run actual = run(m_gpu, selfCache, crossCache);
        const double encoderError = test::relativeError(actual.encoderOut, expected.encoderOut);
        const double logitsError = test::relativeError(actual.logits, expected.logits);
        qInfo("encoder output relative error %.3g, logits %.3g", encoderError, logitsError);
        QCOMPARE(actual.tokens, expected.tokens);
        QVERIFY2(encoderError <= kTolerance, qPrintable(QString::number(encoderError)));
        QVERIFY2(logitsError <= kTolerance, qPrintable(QString::number(logitsError)));
        QCOMPARE(int(actual.logits.size()), kSteps * m_model->config().nVocab);
    }

    void stepGraphsGreedy_data() {
        QTest::addColumn<bool>("crossCache");
        QTest::newRow("cross cache on") << true;
        QTest::newRow("cross cache off") << false;
    }

    void stepGraphsGreedy() {
        QFETCH(bool, crossCache);
        SessionTimings on, off;
        const Run graphs = run(m_gpu, true, crossCache, true, &on);
        const Run eager = run(m_gpu, true, crossCache, false, &off);
        const Run cpu = run(m_cpu, true, crossCache, true);
        // kSteps calls: the prompt, one eager step, then one recording and a replay per step.
        QCOMPARE(on.stepRecordings, 1);
        QCOMPARE(on.stepReplays, kSteps - 2);
        QCOMPARE(off.stepReplays, 0);
        const double vsEager = test::relativeError(graphs.logits, eager.logits);
        const double vsCpu = test::relativeError(graphs.logits, cpu.logits);
        qInfo("graph replay vs op by op %.3g, vs CPU %.3g", vsEager, vsCpu);
        QCOMPARE(graphs.tokens, eager.tokens);
        QCOMPARE(graphs.tokens, cpu.tokens);
        QVERIFY2(vsEager <= 1e-6, qPrintable(QString::number(vsEager)));
        QVERIFY2(vsCpu <= kTolerance, qPrintable(QString::number(vsCpu)));
    }

    void stepGraphsBeams() {
        // Five beams, steps with reorders (slots move), then three beams: GPU graphs vs CPU.
        std::vector<float> logitsOf[2];
        SessionTimings timings;
        const std::shared_ptr<Backend> backends[2] = {m_cpu, m_gpu};
        const int vocab = m_model->config().nVocab;
        for (int i = 0; i < 2; ++i) {
            SessionOptions options;
            options.maxBeams = 5;
            auto created = InferenceSession::create(m_model, backends[i], options);
            QVERIFY2(created.ok(), created.ok() ? "" : created.message().c_str());
            InferenceSession& session = *created.value();
            QVERIFY(session.encode(m_mel).ok());
            std::vector<std::vector<int>> beams;
            for (int b = 0; b < 5; ++b) {
                beams.push_back(kStart);
                beams.back().push_back(440 + 37 * b);
            }
            std::vector<float> logits;
            QVERIFY(session.decode(beams, logits).ok());
            for (int step = 0; step < 12; ++step) {
                // Fixed sources (the same on both backends), tokens from the CPU-independent rule
                // "source beam's argmax + b" so both runs take the same path unless logits differ.
                const std::vector<int> sources = step < 6 ? std::vector<int>{1, 0, 0, 3, 2} : std::vector<int>{2, 2, 0};
                std::vector<std::vector<int>> next;
                for (size_t b = 0; b < sources.size(); ++b) {
                    const float* row = &logits[size_t(sources[b]) * size_t(vocab)];
                    const int best = int(std::max_element(row, row + vocab) - row);
                    next.push_back(beams[size_t(sources[b])]);
                    next.back().push_back((best + int(b)) % vocab);
                }
                session.reorderBeams(sources);
                beams = next;
                QVERIFY(session.decode(beams, logits).ok());
                logitsOf[i].insert(logitsOf[i].end(), logits.begin(), logits.end());
            }
            if (i == 1) timings = session.timings();
        }
        const double error = test::relativeError(logitsOf[1], logitsOf[0]);
        qInfo("beam steps through graphs: logits relative error %.3g", error);
        QVERIFY2(error <= kTolerance, qPrintable(QString::number(error)));
        QCOMPARE(timings.stepRecordings, 2);   // 5 beams, then 3
        QCOMPARE(timings.stepReplays, 5 + 5);  // each shape: one eager step, then replays
    }

    void beamsWithReorder() {
        // Five beams with different continuations, then a reorder (copies of cache rows within
        // the self cache) and one more step: logits as the CPU's.
        std::vector<std::vector<float>> logitsOf[2];
        const std::shared_ptr<Backend> backends[2] = {m_cpu, m_gpu};
        for (int i = 0; i < 2; ++i) {
            SessionOptions options;
            options.maxBeams = 5;
            auto created = InferenceSession::create(m_model, backends[i], options);
            QVERIFY2(created.ok(), created.ok() ? "" : created.message().c_str());
            InferenceSession& session = *created.value();
            QVERIFY(session.encode(m_mel).ok());
            std::vector<std::vector<int>> beams;
            for (int b = 0; b < 5; ++b) {
                std::vector<int> tokens = kStart;
                for (int t = 0; t <= b; ++t) tokens.push_back(440 + 37 * b + t);
                beams.push_back(tokens);
            }
            std::vector<float> logits;
            QVERIFY(session.decode(beams, logits).ok());
            logitsOf[i].push_back(logits);
            const std::vector<int> sources = {0, 0, 1, 3, 3};
            session.reorderBeams(sources);
            std::vector<std::vector<int>> next;
            for (size_t b = 0; b < sources.size(); ++b) {
                next.push_back(beams[size_t(sources[b])]);
                next.back().push_back(1000 + int(b));
            }
            QVERIFY(session.decode(next, logits).ok());
            logitsOf[i].push_back(logits);
        }
        for (size_t step = 0; step < 2; ++step) {
            const double error = test::relativeError(logitsOf[1][step], logitsOf[0][step]);
            qInfo("step %zu: logits relative error %.3g", step, error);
            QVERIFY2(error <= kTolerance, qPrintable(QString::number(error)));
        }
    }
};

QTEST_APPLESS_MAIN(TestCudaSession)
#include "tst_cuda_session.moc"
