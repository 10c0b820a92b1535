// EngineHost (core/engine/engine_host.h): model, backend, precision and threads changed as one
// transaction on random-weight models written to disk with the real vocabulary. A change that
// fails leaves the previous state transcribing the same tokens; threads change on the backend in
// place and nothing else; a model switch keeps at most max(old, new) weight bytes alive
// (DeviceWeights::resident); an upload that runs out of memory (an address-space limit) brings
// the previous weights back.
#include "engine_test_model.h"

#include "core/engine/engine_host.h"
#include "core/frontend/pcm_wav.h"
#include "core/nn/device_weights.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/resource.h>

using namespace hearsay;

namespace {

// The process's address space in bytes (VmSize), 0 when it cannot be read.
size_t addressSpaceBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmSize:", 0) == 0) return size_t(std::stoull(line.substr(7))) * 1024;
    }
    return 0;
}

// An address-space limit for the lifetime of the object; the previous one comes back after.
class AddressSpaceLimit {
public:
    explicit AddressSpaceLimit(size_t bytes) {
        m_ok = getrlimit(RLIMIT_AS, &m_previous) == 0;
        rlimit limit = m_previous;
        limit.rlim_cur = bytes;
        m_ok = m_ok && setrlimit(RLIMIT_AS, &limit) == 0;
    }
    ~AddressSpaceLimit() {
        if (m_ok) setrlimit(RLIMIT_AS, &m_previous);
    }
    bool ok() const { return m_ok; }

private:
    rlimit m_previous{};
    bool m_ok = false;
};

} // namespace

class TestEngineHost : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    LogMel m_mel;
    std::string m_small;  // 64x2x2, f32
    std::string m_wide;   // 128x2x2, f32: more weight bytes
    std::string m_bf16;   // tiny in bf16: every tensor is widened to f32 on upload (allocations)

    static EngineConfig config(const std::string& model, int threads = 2, Precision precision = Precision::Fp32) {
        EngineConfig c;
        c.modelPath = model;
        c.backend = BackendKind::Cpu;
        c.precision = precision;
        c.threads = threads;
        return c;
    }

    // Greedy tokens after start-of-transcript, from a fresh session of the host.
    Result<std::vector<int>> tokens(const EngineHost& host) {
        SessionOptions options;
        options.maxBeams = 1;
        auto session = host.createSession(options);
        if (!session) return session.error();
        return tokens(*session.value());
    }
    Result<std::vector<int>> tokens(InferenceSession& session) {
        if (auto ok = session.encode(m_mel); !ok) return ok.error();
        return test::greedyDecode(session, {50258, 50259, 50359}, 8);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_small = m_dir.filePath("small").toStdString();
        m_wide = m_dir.filePath("wide").toStdString();
        m_bf16 = m_dir.filePath("tiny-bf16").toStdString();
        for (auto [path, dims, seed, dtype] : {std::tuple{m_small, "64x2x2", 7, DType::F32},
                                               std::tuple{m_wide, "128x2x2", 8, DType::F32},
                                               std::tuple{m_bf16, "tiny", 9, DType::BF16}}) {
            auto written = test::writeTestModel(path, dims, uint64_t(seed), dtype);
            QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
        }
        auto samples = readPcm16Wav(std::string(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav");
        QVERIFY2(samples.ok(), samples.ok() ? "" : samples.message().c_str());
        m_mel = logMelSpectrogram(samples->data(), samples->size(), 80);
    }

    void nothingLoadedIsAnError() {
        EngineHost host;
        QVERIFY(!host.loaded());
        QVERIFY(host.needsUpload(config(m_small)));
        auto session = host.createSession({});
        QVERIFY(!session.ok());
        QVERIFY2(QString::fromStdString(session.message()).contains("no model"), session.message().c_str());
        auto negative = host.apply(config(m_small, -1));
        QVERIFY(!negative.ok());
        QCOMPARE(negative.kind(), ErrorKind::BadInput);
        QVERIFY(!host.loaded());
    }

    void aModelThatCannotBeReadLeavesTheOldOne() {
        EngineHost host;
        QVERIFY(host.apply(config(m_small)).ok());
        auto before = tokens(host);
        QVERIFY2(before.ok(), before.ok() ? "" : before.message().c_str());
        const Backend* backend = &host.engine().backend();
        const size_t uploads = backend->weightUploads().buffers;

        // A path that is not there, and a file that is not a model: named, bad input, nothing
        // released or uploaded, the previous model transcribes as before.
        const std::string corrupt = m_dir.filePath("corrupt.bin").toStdString();
        {
            QFile file(QString::fromStdString(corrupt));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray(4096, 'x'));
        }
        for (const std::string& path : {m_dir.filePath("nothing-here").toStdString(), corrupt}) {
            auto failed = host.apply(config(path));
            QVERIFY(!failed.ok());
            QCOMPARE(failed.kind(), ErrorKind::BadInput);
            const std::string name = std::filesystem::path(path).filename().string();
            QVERIFY2(failed.message().find(name) != std::string::npos, failed.message().c_str());
            QVERIFY(host.loaded());
            QCOMPARE(host.config().modelPath, std::filesystem::path(m_small));
            QCOMPARE(&host.engine().backend(), backend);
            QCOMPARE(backend->weightUploads().buffers, uploads);
            auto after = tokens(host);
            QVERIFY2(after.ok(), after.ok() ? "" : after.message().c_str());
            QCOMPARE(after.value(), before.value());
        }

        // A bad thread count changes nothing either.
        QVERIFY(!host.apply(config(m_wide, -3)).ok());
        QCOMPARE(host.config().modelPath, std::filesystem::path(m_small));
        QCOMPARE(host.engine().backend().threads(), 2);
    }

    void threadsChangeOnTheBackendInPlace() {
        EngineHost host;
        QVERIFY(host.apply(config(m_small, 1)).ok());
        Backend* backend = &host.engine().backend();
        QCOMPARE(backend->threads(), 1);
        auto one = tokens(host);
        QVERIFY2(one.ok(), one.ok() ? "" : one.message().c_str());
        const size_t uploads = backend->weightUploads().buffers;

        QVERIFY(!host.needsUpload(config(m_small, 2)));
        QVERIFY(host.apply(config(m_small, 2)).ok());
        QCOMPARE(&host.engine().backend(), backend);  // the same backend, the same weights
        QCOMPARE(backend->threads(), 2);
        QCOMPARE(backend->weightUploads().buffers, uploads);
        auto two = tokens(host);
        QVERIFY2(two.ok(), two.ok() ? "" : two.message().c_str());
        QCOMPARE(two.value(), one.value());
        // Sessions never set the backend's threads, whatever the backend had before.
        backend->setThreads(1);
        auto session = host.createSession({});
        QVERIFY(session.ok());
        QCOMPARE(backend->threads(), 1);
    }

    void precisionSwitchMakesANewBackendWithTheSameTokens() {
        EngineHost host;
        QVERIFY(host.apply(config(m_small, 2, Precision::Fp32)).ok());
        auto f32 = tokens(host);
        QVERIFY2(f32.ok(), f32.ok() ? "" : f32.message().c_str());
        const Backend* before = &host.engine().backend();
        QVERIFY(host.needsUpload(config(m_small, 2, Precision::Fp16)));
        QVERIFY(host.apply(config(m_small, 2, Precision::Fp16)).ok());
        QVERIFY(&host.engine().backend() != before);
        QCOMPARE(host.config().precision, Precision::Fp16);
        // The CPU backend computes in float32 either way; Fp16 keeps its cross cache in half: the
        // same tokens here.
        QCOMPARE(host.engine().backend().precision(), Precision::Fp16);
        QCOMPARE(host.engine().backend().kvElementBytes(), size_t(2));
        QCOMPARE(host.engine().backend().weightUploads().buffers, host.engine().weights().buffers());
        auto f16 = tokens(host);
        QVERIFY2(f16.ok(), f16.ok() ? "" : f16.message().c_str());
        QCOMPARE(f16.value(), f32.value());
    }

    void aSwitchReleasesTheOldWeightsBeforeTheUpload() {
        EngineHost host;
        QVERIFY(host.apply(config(m_small)).ok());
        const size_t base = DeviceWeights::resident().bytes - host.engine().weights().bytes();
        const size_t small = host.engine().weights().bytes();
        auto smallTokens = tokens(host);
        QVERIFY(smallTokens.ok());

        // No session held: the old weights go before the new ones come.
        DeviceWeights::resetResidentPeak();
        QVERIFY(host.apply(config(m_wide)).ok());
        const size_t wide = host.engine().weights().bytes();
        QVERIFY(wide > small);
        QCOMPARE(DeviceWeights::resident().bytes, base + wide);
        QVERIFY2(DeviceWeights::resident().peakBytes <= base + std::max(small, wide),
                 qPrintable(QString("peak %1, old %2, new %3").arg(DeviceWeights::resident().peakBytes).arg(small).arg(wide)));

        // A session held across the switch holds its weights (as documented): then both are
        // alive at once, which the statistics show.
        auto held = host.createSession({});
        QVERIFY(held.ok());
        DeviceWeights::resetResidentPeak();
        QVERIFY(host.apply(config(m_small)).ok());
        QCOMPARE(DeviceWeights::resident().peakBytes, base + small + wide);
        held.value().reset();
        QCOMPARE(DeviceWeights::resident().bytes, base + small);
        auto back = tokens(host);
        QVERIFY(back.ok());
        QCOMPARE(back.value(), smallTokens.value());
    }

    void aFailedUploadBringsThePreviousWeightsBack() {
#ifdef HEARSAY_SANITIZED
        QSKIP("an address-space limit does not work beside the sanitizers' shadow memory");
#endif
        EngineHost host;
        QVERIFY(host.apply(config(m_small)).ok());
        auto before = tokens(host);
        QVERIFY(before.ok());
        const Backend* backend = &host.engine().backend();
        std::weak_ptr<const DeviceWeights> previous = host.engine().sharedWeights();

        // Room for the bf16 file's map and its vocabulary, not for its 150 MB of float32
        // weights (the largest tensor alone is 80 MB).
        const size_t fileBytes = size_t(std::filesystem::file_size(std::filesystem::path(m_bf16) / "model.safetensors"));
        auto tryWide = [&] {
            const size_t space = addressSpaceBytes();
            if (space == 0) return Result<void>(makeError("VmSize cannot be read"));
            AddressSpaceLimit limit(space + fileBytes + (48u << 20));
            if (!limit.ok()) return Result<void>(makeError("the address-space limit cannot be set"));
            return host.apply(config(m_bf16));
        };

        // Nothing holds the previous weights: released before the upload (gone), uploaded again
        // after the failure to the same backend.
        auto failed = tryWide();
        QVERIFY(!failed.ok());
        QVERIFY2(failed.kind() == ErrorKind::OutOfMemory, failed.message().c_str());
        QVERIFY(previous.expired());
        QVERIFY(host.loaded());
        QCOMPARE(host.config().modelPath, std::filesystem::path(m_small));
        QCOMPARE(&host.engine().backend(), backend);
        auto after = tokens(host);
        QVERIFY2(after.ok(), after.ok() ? "" : after.message().c_str());
        QCOMPARE(after.value(), before.value());

        // A session holds the previous weights: they come back as they are (nothing uploaded
        // again), and the session goes on with them.
        auto held = host.createSession({});
        QVERIFY(held.ok());
        previous = host.engine().sharedWeights();
        failed = tryWide();
        QVERIFY(!failed.ok());
        QCOMPARE(failed.kind(), ErrorKind::OutOfMemory);
        QCOMPARE(host.engine().sharedWeights(), previous.lock());
        auto heldTokens = tokens(*held.value());
        QVERIFY(heldTokens.ok());
        QCOMPARE(heldTokens.value(), before.value());
        auto hostTokens = tokens(host);
        QVERIFY(hostTokens.ok());
        QCOMPARE(hostTokens.value(), before.value());
    }
};

QTEST_GUILESS_MAIN(TestEngineHost)
#include "tst_engine_host.moc"
