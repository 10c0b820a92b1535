// Engine (core/engine): a model's weights reach the backend once per engine, however many
// sessions are made from it (different beam counts, cache switches, step graphs; one after the
// other and side by side), counted at the backend (Backend::weightUploads: every weight buffer
// made, copies and tensors the CPU uses in place alike). Sessions over shared weights decode the
// same tokens, outlive the engine, and load errors carry a kind.
#include "engine_test_model.h"

#include "core/engine/backend_factory.h"
#include "core/engine/engine.h"
#include "core/frontend/pcm_wav.h"
#include "core/model/model_tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <optional>

using namespace hearsay;

namespace {

// One buffer per weight tensor of the network: conv1, conv2 (weight, bias), positional, layer norm
// (2) of the encoder; token embedding, positional, layer norm (2) of the decoder (11 in all); per
// encoder layer 2 layer norms (4), attention q/k/v/out (7: k has no bias), fc1, fc2 (4) = 15; per
// decoder layer 3 layer norms (6), 2 attentions (14), fc1, fc2 (4) = 24.
size_t networkTensors(const WhisperConfig& c) { return 11 + 15 * size_t(c.nAudioLayer) + 24 * size_t(c.nTextLayer); }

struct SessionCase {
    const char* name;
    int beams;
    bool selfCache, crossCache, stepGraphs;
};

const SessionCase kCases[] = {
    {"greedy, caches on", 1, true, true, true},
    {"5 beams, self cache off", 5, false, true, true},
    {"2 beams, cross cache off, eager steps", 2, true, false, false},
    {"5 beams, both caches off", 5, false, false, true},
    {"8 beams, caches on, eager steps", 8, true, true, false},
};

} // namespace

class TestEngineSessions : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    LogMel m_mel;
    std::string m_f32;  // 64x2x2 models with the real vocabulary
    std::string m_f16;
    std::string m_ggml;

    static EngineOptions cpu() {
        EngineOptions options;
        options.backend = BackendKind::Cpu;
        options.backendOptions.threads = 2;
        return options;
    }

    // Greedy tokens after start-of-transcript from a fresh window, or the error.
    Result<std::vector<int>> greedy(InferenceSession& session) {
        if (auto ok = session.encode(m_mel); !ok) return ok.error();
        return test::greedyDecode(session, {50258, 50259, 50359}, 6);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_f32 = m_dir.filePath("f32").toStdString();
        m_f16 = m_dir.filePath("f16").toStdString();
        m_ggml = m_dir.filePath("f16.bin").toStdString();
        for (auto [path, dtype, format] : {std::tuple{m_f32, DType::F32, ModelFormat::HuggingFace},
                                           std::tuple{m_f16, DType::F16, ModelFormat::HuggingFace},
                                           std::tuple{m_ggml, DType::F16, ModelFormat::Ggml}}) {
            auto written = test::writeTestModel(path, "64x2x2", 7, dtype, format);
            QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
        }
        auto samples = readPcm16Wav(std::string(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav");
        QVERIFY2(samples.ok(), samples.ok() ? "" : samples.message().c_str());
        m_mel = logMelSpectrogram(samples->data(), samples->size(), 80);
    }

    void weightsUploadOnceAcrossSessions_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("hf f32 (in place on the CPU)") << QString::fromStdString(m_f32);
        QTest::newRow("hf f16 (matrices in place, vectors widened)") << QString::fromStdString(m_f16);
        QTest::newRow("ggml f16") << QString::fromStdString(m_ggml);
    }

    void weightsUploadOnceAcrossSessions() {
        QFETCH(QString, model);
        auto loaded = Engine::load(model.toStdString(), cpu());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Engine& engine = loaded.value();
        const Backend::WeightUploads afterLoad = engine.backend().weightUploads();
        QCOMPARE(afterLoad.buffers, networkTensors(engine.model().config()));
        QCOMPARE(afterLoad.buffers, engine.weights().buffers());
        QCOMPARE(afterLoad.bytes, engine.weights().bytes());
        QVERIFY(afterLoad.bytes >= engine.model().weightBytes());  // f16 vectors are widened

        // Sessions of every shape, one after the other: caches and work buffers only.
        std::optional<std::vector<int>> expected;
        for (const SessionCase& c : kCases) {
            SessionOptions options;
            options.maxBeams = c.beams;
            options.selfAttentionCache = c.selfCache;
            options.crossAttentionCache = c.crossCache;
            options.stepGraphs = c.stepGraphs;
            auto session = engine.createSession(options);
            QVERIFY2(session.ok(), session.ok() ? c.name : session.message().c_str());
            QCOMPARE(session.value()->maxBeams(), c.beams);
            QCOMPARE(session.value()->selfAttentionCache(), c.selfCache);
            QCOMPARE(session.value()->crossAttentionCache(), c.crossCache);
            auto tokens = greedy(*session.value());
            QVERIFY2(tokens.ok(), tokens.ok() ? c.name : tokens.message().c_str());
            // The same weights give the same tokens whatever the session's shape.
            if (!expected) expected = tokens.value();
            QVERIFY2(tokens.value() == *expected, c.name);
            const Backend::WeightUploads now = engine.backend().weightUploads();
            QVERIFY2(now.buffers == afterLoad.buffers && now.bytes == afterLoad.bytes, c.name);
        }

        // Side by side, interleaved, with the switches flipped through the controls meanwhile.
        auto a = engine.createSession({});
        auto b = engine.createSession({});
        QVERIFY(a.ok() && b.ok());
        QVERIFY(a.value()->encode(m_mel).ok());
        QVERIFY(b.value()->encode(m_mel).ok());
        std::vector<int> sequence = {50258, 50259, 50359};
        std::vector<float> la, lb;
        for (int step = 0; step < 4; ++step) {
            if (step == 2) b.value()->controls()->selfCache = false;
            QVERIFY(a.value()->decode({sequence}, la).ok());
            QVERIFY(b.value()->decode({sequence}, lb).ok());
            QVERIFY(test::relativeError(la, lb) < 1e-5);
            sequence.push_back(int(std::max_element(la.begin(), la.end()) - la.begin()));
        }
        QCOMPARE(sequence, std::vector<int>(expected->begin(), expected->begin() + 7));
        QVERIFY(a.value()->cacheStats().selfAllocated > 0);
        QCOMPARE(b.value()->cacheStats().selfAllocated, size_t(0));  // each session its own caches
        QCOMPARE(engine.backend().weightUploads().buffers, afterLoad.buffers);

        // A session made from the model and the backend shares the engine's weights; one on
        // another backend uploads its own copy, and two such sessions share it.
        auto oneOff = InferenceSession::create(engine.sharedModel(), engine.sharedBackend(), {});
        QVERIFY(oneOff.ok());
        QCOMPARE(engine.backend().weightUploads().buffers, afterLoad.buffers);
        auto otherBackend = test::cpuBackend(1);
        auto first = InferenceSession::create(engine.sharedModel(), otherBackend, {});
        auto again = InferenceSession::create(engine.sharedModel(), otherBackend, {});
        QVERIFY(first.ok() && again.ok());
        QCOMPARE(otherBackend->weightUploads().buffers, afterLoad.buffers);
        QCOMPARE(engine.backend().threads(), 2);  // a session never changes its backend's threads
        // The counter does see uploads: a second engine on the same backend uploads again.
        auto second = Engine::create(engine.sharedModel(), engine.sharedTokenizer(), engine.sharedBackend());
        QVERIFY(second.ok());
        QCOMPARE(engine.backend().weightUploads().buffers, 2 * afterLoad.buffers);
        QCOMPARE(engine.backend().weightUploads().bytes, 2 * afterLoad.bytes);
    }

    void weightsUploadOnceOnTheGpu() {
        // The same on the CUDA backend (fp16: weight matrices half, vectors float32), where the
        // upload is a real host-to-device copy. Skipped where CUDA cannot start (no GPU, or a
        // build without it).
        auto gpu = createBackend(BackendKind::Cuda, {0, 0, Precision::Fp16});
        if (!gpu.ok()) QSKIP(qPrintable("no GPU: " + QString::fromStdString(gpu.message())));
        auto loaded = Engine::create(WhisperModel::load(m_f32).value(), nullptr, gpu.value());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Engine& engine = loaded.value();
        const Backend::WeightUploads afterLoad = engine.backend().weightUploads();
        QCOMPARE(afterLoad.buffers, networkTensors(engine.model().config()));
        QCOMPARE(afterLoad.bytes, engine.weights().bytes());
        QVERIFY(afterLoad.bytes < engine.model().weightBytes());  // float32 file, half matrices on the GPU
        for (const SessionCase& c : kCases) {
            SessionOptions options;
            options.maxBeams = c.beams;
            options.selfAttentionCache = c.selfCache;
            options.crossAttentionCache = c.crossCache;
            options.stepGraphs = c.stepGraphs;
            auto session = engine.createSession(options);
            QVERIFY2(session.ok(), session.ok() ? c.name : session.message().c_str());
            auto tokens = greedy(*session.value());
            QVERIFY2(tokens.ok(), tokens.ok() ? c.name : tokens.message().c_str());
            QVERIFY2(engine.backend().weightUploads().buffers == afterLoad.buffers, c.name);
        }
    }

    void sessionsOutliveTheEngine() {
        std::unique_ptr<ControlledSession> session;
        std::vector<int> before;
        {
            auto engine = Engine::load(m_f16, cpu());
            QVERIFY(engine.ok());
            auto created = engine->createSession({});
            QVERIFY(created.ok());
            session = std::move(created).value();
            auto tokens = greedy(*session);
            QVERIFY(tokens.ok());
            before = tokens.value();
        }
        // Every Engine copy is gone; the session holds the weights, backend and model it uses.
        auto again = greedy(*session);
        QVERIFY2(again.ok(), again.ok() ? "" : again.message().c_str());
        QCOMPARE(again.value(), before);
        QCOMPARE(session->model().config().nTextState, 64);
    }

    void errorsCarryAKind() {
        // A file that is not there: bad input, named.
        auto missing = Engine::load(m_dir.filePath("nothing-here").toStdString(), cpu());
        QVERIFY(!missing.ok());
        QCOMPARE(missing.kind(), ErrorKind::BadInput);
        QVERIFY2(QString::fromStdString(missing.message()).contains("nothing-here"), missing.message().c_str());

        // A model without a vocabulary cannot be transcribed with: bad input, before any backend.
        auto bare = test::makeRandomModel(test::customConfig(64, 2, 2), 1);
        auto noTokenizer = Engine::create(bare, nullptr, cpu());
        QVERIFY(!noTokenizer.ok());
        QCOMPARE(noTokenizer.kind(), ErrorKind::BadInput);
        QVERIFY2(QString::fromStdString(noTokenizer.message()).contains("vocabulary"), noTokenizer.message().c_str());

        // Options the backend refuses.
        EngineOptions negative = cpu();
        negative.backendOptions.threads = -1;
        auto refused = Engine::load(m_f32, negative);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.kind(), ErrorKind::BadInput);

        // CUDA where it cannot run (no GPU, or a build without it): the device's failure, with the
        // reason and no CLI advice (the CLI adds "--backend cpu", the GUI a button).
        EngineOptions cuda = cpu();
        cuda.backend = BackendKind::Cuda;
        auto onGpu = Engine::load(m_f32, cuda);
        if (onGpu.ok()) {
            QCOMPARE(onGpu->backend().kind(), BackendKind::Cuda);  // a machine with a GPU
        } else {
            QCOMPARE(onGpu.kind(), ErrorKind::Device);
            QVERIFY2(QString::fromStdString(onGpu.message()).contains("CUDA"), onGpu.message().c_str());
            QVERIFY2(!QString::fromStdString(onGpu.message()).contains("--backend"), onGpu.message().c_str());
        }

        // Impossible session options.
        auto engine = Engine::load(m_f32, cpu());
        QVERIFY(engine.ok());
        SessionOptions none;
        none.maxBeams = 0;
        auto noBeams = engine->createSession(none);
        QVERIFY(!noBeams.ok());
        QCOMPARE(noBeams.kind(), ErrorKind::BadInput);

        // Context keeps the kind.
        Result<void> oom = makeError("cannot allocate 1 GiB", ErrorKind::OutOfMemory);
        const Error wrapped = oom.error().prefixed("session: ");
        QCOMPARE(wrapped.kind, ErrorKind::OutOfMemory);
        QCOMPARE(wrapped.message, std::string("session: cannot allocate 1 GiB"));
        QCOMPARE(std::string(errorKindName(wrapped.kind)), std::string("out of memory"));
    }
};

QTEST_APPLESS_MAIN(TestEngineSessions)
#include "tst_engine_sessions.moc"
