// End to end: an InferenceSession on a random 64x2x2 model (d 64, 2 layers, 2 heads, the real
// vocabulary size) on the CUDA backend (fp32 mode) against the same session on CpuBackend:
// encoder output and every step's logits within 1e-4 relative and identical greedy tokens over
// 20 steps, for all four cache-switch combinations; and five beams with a reorder. Then the
// golden models (tests/data/golden: small 64x2x2 and tiny 384x4x6, the weights of
// core.engine_reference) on the three speech clips, in fp32 and fp16 mode: identical greedy
// tokens, encoder output and logits within 1e-4 (fp32) or 1e-2 (fp16; both backends use the same
// fp16-rounded weights, so the difference is the GPU's fp16 activations at the GEMM inputs).
// The one exception to identical tokens is a numerical tie: a step where the CPU's own top-2
// logit margin is below twice the largest logit difference measured (small, clip speech-30s-b
// has a step with a margin of about 6e-4 in fp16 and 3e-5 in fp32); the clip's comparison then
// ends at that step, with a warning. Step graphs:
// greedy and beam decoding with the decode step replayed as a CUDA graph against the GPU's
// op-by-op run (≤ 1e-6) and the CPU (1e-4), with the counters proving the graph path ran.
#include "cuda_test_support.h"

#include "core/engine/backend_factory.h"
#include "core/util/half.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"
#include "kernels/device_info.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>

using nlohmann::json;

using namespace hearsay;

namespace {

constexpr int kGoldenSteps = 24;
constexpr double kHalfTolerance = 1e-2;

// The configuration and seed of golden model `name` (its manifest.json), or an error text.
Result<std::pair<WhisperConfig, uint64_t>> goldenModel(const std::string& name) {
    const auto path = std::filesystem::path(HEARSAY_TEST_DATA_DIR) / "golden" / name / "manifest.json";
    auto text = readTextFile(path);
    if (!text) return text.error();
    auto parsed = parseJson(text.value());
    if (!parsed) return makeError(path.string() + ": " + parsed.message());
    const json& dims = parsed.value()["dims"];
    WhisperConfig c;
    c.nMels = int(dims["n_mels"].get<int64_t>());
    c.nAudioCtx = int(dims["n_audio_ctx"].get<int64_t>());
    c.nAudioState = int(dims["n_audio_state"].get<int64_t>());
    c.nAudioHead = int(dims["n_audio_head"].get<int64_t>());
    c.nAudioLayer = int(dims["n_audio_layer"].get<int64_t>());
    c.nVocab = int(dims["n_vocab"].get<int64_t>());
    c.nTextCtx = int(dims["n_text_ctx"].get<int64_t>());
    c.nTextState = int(dims["n_text_state"].get<int64_t>());
    c.nTextHead = int(dims["n_text_head"].get<int64_t>());
    c.nTextLayer = int(dims["n_text_layer"].get<int64_t>());
    if (auto valid = c.validate(); !valid) return valid.error();
    return std::pair{c, uint64_t(parsed.value()["seed"].get<int64_t>())};
}

// The gap between the largest and the second largest logit of one step.
float topMargin(const float* logits, size_t n) {
    float first = -INFINITY, second = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (logits[i] > first) {
            second = first;
            first = logits[i];
        } else if (logits[i] > second) {
            second = logits[i];
        }
    }
    return first - second;
}

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
        auto gpu = createBackend(BackendKind::Cuda, {0, 0, Precision::Fp32});
        QVERIFY2(gpu.ok(), gpu.ok() ? "" : gpu.message().c_str());
        m_gpu = gpu.value();
        m_cpu = test::cpuBackend(2);
        m_model = test::makeRandomModel(test::customConfig(64, 2, 2), 11);
        m_mel = test::syntheticMel(80, 3000, 1);
    }

    // The cross cache's accounting follows its storage: half in fp16 mode (Backend::allocateKv),
    // float32 in fp32 mode and on the CPU; the self cache is float32 everywhere.
    void cacheBytesFollowTheKvType() {
        auto gpu16 = createBackend(BackendKind::Cuda, {0, 0, Precision::Fp16});
        QVERIFY2(gpu16.ok(), gpu16.ok() ? "" : gpu16.message().c_str());
        const WhisperConfig& c = m_model->config();
        const size_t cross = 2 * size_t(c.nTextLayer) * size_t(c.nAudioCtx) * size_t(c.nTextState);
        const size_t self = 2 * size_t(c.nTextLayer) * size_t(c.nTextCtx) * size_t(c.nTextState);
        for (auto [backend, crossElementBytes] : {std::pair{gpu16.value(), size_t(2)}, std::pair{m_gpu, size_t(4)},
                                                  std::pair{m_cpu, size_t(4)}}) {
            SessionOptions options;
            options.maxBeams = 1;  // self: one slot of n_text_ctx positions
            auto session = InferenceSession::create(m_model, backend, options);
            QVERIFY2(session.ok(), session.ok() ? "" : session.message().c_str());
            QVERIFY(session.value()->encode(m_mel).ok());
            const KvCacheStats stats = session.value()->cacheStats();
            QCOMPARE(stats.crossAllocated, cross * crossElementBytes);
            QCOMPARE(stats.crossInUse, cross * crossElementBytes);
            QCOMPARE(stats.selfAllocated, self * sizeof(float));
        }
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
        QTest::addColumn<bool>("half");
        for (bool half : {false, true}) {
            QTest::addRow("cross cache on, %s", half ? "fp16" : "fp32") << true << half;
            QTest::addRow("cross cache off, %s", half ? "fp16" : "fp32") << false << half;
        }
    }

    void stepGraphsGreedy() {
        QFETCH(bool, crossCache);
        QFETCH(bool, half);
        std::shared_ptr<Backend> gpu = m_gpu;
        if (half) {  // the CUDA default: fp16 weights, fp16 GEMMs through the cast scratch
            auto created = createBackend(BackendKind::Cuda, {0, 0, Precision::Fp16});
            QVERIFY2(created.ok(), created.ok() ? "" : created.message().c_str());
            gpu = created.value();
        }
        SessionTimings on, off;
        const Run graphs = run(gpu, true, crossCache, true, &on);
        const Run eager = run(gpu, true, crossCache, false, &off);
        // kSteps calls: the prompt, one eager step, then one recording and a replay per step.
        QCOMPARE(on.stepRecordings, 1);
        QCOMPARE(on.stepReplays, kSteps - 2);
        QCOMPARE(off.stepReplays, 0);
        const double vsEager = test::relativeError(graphs.logits, eager.logits);
        qInfo("graph replay vs op by op: logits relative error %.3g", vsEager);
        QCOMPARE(graphs.tokens, eager.tokens);
        QVERIFY2(vsEager <= 1e-6, qPrintable(QString::number(vsEager)));
        if (half) return;  // fp16 against the CPU: the golden-model tests
        const Run cpu = run(m_cpu, true, crossCache, true);
        const double vsCpu = test::relativeError(graphs.logits, cpu.logits);
        qInfo("graph replay vs CPU: logits relative error %.3g", vsCpu);
        QCOMPARE(graphs.tokens, cpu.tokens);
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

    void goldenModelsMatchCpu_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("half");
        for (const char* model : {"small", "tiny"}) {
            QTest::addRow("%s fp32", model) << QString(model) << false;
            QTest::addRow("%s fp16", model) << QString(model) << true;
        }
    }

    void goldenModelsMatchCpu() {
        QFETCH(QString, model);
        QFETCH(bool, half);
        auto golden = goldenModel(model.toStdString());
        QVERIFY2(golden.ok(), golden.ok() ? "" : golden.message().c_str());
        const WhisperConfig& config = golden.value().first;
        std::string why;
        const std::vector<LogMel> mels = test::speechClipMels(config.nMels, &why);
        QVERIFY2(!mels.empty(), qPrintable(QString::fromStdString("no speech clips (../shared/data): " + why)));
        // fp16: both backends get the fp16-rounded matrices (the GPU keeps them as half).
        test::ValueRounding round;
        if (half) {
            round = [](const TensorSpec& spec, float v) { return spec.shape.size() >= 2 ? halfToFloat(floatToHalf(v)) : v; };
        }
        const auto weights = test::makeRandomModel(config, golden.value().second, round);
        auto gpu = createBackend(BackendKind::Cuda, {0, 0, half ? Precision::Fp16 : Precision::Fp32});
        QVERIFY2(gpu.ok(), gpu.ok() ? "" : gpu.message().c_str());
        QCOMPARE(gpu.value()->precision(), half ? Precision::Fp16 : Precision::Fp32);
        const double tolerance = half ? kHalfTolerance : kTolerance;
        const std::vector<int> start = {50258, 50259, 50359, 50363};  // sot, en, transcribe, notimestamps

        for (size_t clip = 0; clip < mels.size(); ++clip) {
            Run runs[2];
            const std::shared_ptr<Backend> backends[2] = {m_cpu, gpu.value()};
            for (int i = 0; i < 2; ++i) {
                auto session = InferenceSession::create(weights, backends[i], SessionOptions{});
                QVERIFY2(session.ok(), session.ok() ? "" : session.message().c_str());
                QVERIFY(session.value()->encode(mels[clip]).ok());
                auto tokens = test::greedyDecode(*session.value(), start, kGoldenSteps, &runs[i].logits);
                QVERIFY2(tokens.ok(), tokens.ok() ? "" : tokens.message().c_str());
                runs[i].tokens = tokens.value();
                runs[i].encoderOut = session.value()->encoderOutput();
            }
            const Run& expected = runs[0];
            const Run& actual = runs[1];
            const size_t vocab = size_t(config.nVocab);
            QCOMPARE(actual.logits.size(), size_t(kGoldenSteps) * vocab);
            QCOMPARE(actual.tokens.size(), expected.tokens.size());
            // The first decode step whose chosen token differs (kGoldenSteps: none). Up to and
            // including it both backends decoded the same history, so its logits are comparable.
            size_t differs = 0;
            while (differs < size_t(kGoldenSteps) &&
                   actual.tokens[start.size() + differs] == expected.tokens[start.size() + differs]) {
                ++differs;
            }
            const size_t compared = std::min(differs + 1, size_t(kGoldenSteps)) * vocab;
            const std::vector<float> actualLogits(actual.logits.begin(), actual.logits.begin() + std::ptrdiff_t(compared));
            const std::vector<float> expectedLogits(expected.logits.begin(),
                                                    expected.logits.begin() + std::ptrdiff_t(compared));
            const double encoderError = test::relativeError(actual.encoderOut, expected.encoderOut);
            const double logitsError = test::relativeError(actualLogits, expectedLogits);
            double maxDiff = 0.0;
            for (size_t i = 0; i < compared; ++i) maxDiff = std::max(maxDiff, double(std::abs(actualLogits[i] - expectedLogits[i])));
            // The smallest gap between the CPU's best and second-best logit: how close a step came to a tie.
            float minMargin = INFINITY;
            for (int step = 0; step < kGoldenSteps; ++step) {
                minMargin = std::min(minMargin, topMargin(expected.logits.data() + size_t(step) * vocab, vocab));
            }
            qInfo("%s %s clip %zu: encoder output relative error %.3g, logits %.3g (largest difference %.3g), "
                  "smallest cpu top-2 margin %.3g, tokens identical over %zu of %d steps",
                  qPrintable(model), half ? "fp16" : "fp32", clip, encoderError, logitsError, maxDiff, double(minMargin),
                  differs, kGoldenSteps);
            if (differs < size_t(kGoldenSteps)) {
                // Identical tokens are required, except where the CPU itself had a numerical tie:
                // its top-2 margin at that step below twice the largest logit difference seen.
                const float margin = topMargin(expected.logits.data() + differs * vocab, vocab);
                const QString what = QString("clip %1: tokens differ at decode step %2 (cpu %3, gpu %4); cpu top-2 margin "
                                             "there %5, largest logit difference %6")
                                         .arg(clip)
                                         .arg(differs)
                                         .arg(expected.tokens[start.size() + differs])
                                         .arg(actual.tokens[start.size() + differs])
                                         .arg(double(margin))
                                         .arg(maxDiff);
                if (double(margin) >= 2.0 * maxDiff) QFAIL(qPrintable(what));
                qWarning("%s: a tie at this precision, the rest of the clip is not compared", qPrintable(what));
            }
            QVERIFY2(encoderError <= tolerance, qPrintable(QString::number(encoderError)));
            QVERIFY2(logitsError <= tolerance, qPrintable(QString::number(logitsError)));
        }
    }
};

QTEST_APPLESS_MAIN(TestCudaSession)
#include "tst_cuda_session.moc"
