// Backend::memoryInfo on the CPU (system RAM from /proc/meminfo, checked against the kernel's
// sysinfo()), the same figures in a session's cacheStats(), and allocation failures whose text
// names the bytes requested and the memory available; a model's map is not resident twice (its
// pages are given back after the load's scan, tensor by tensor as the backend copies them, and
// after the copies); the CPU backend's weights are copies, packed with the cross cache's buffers in
// memory advised for huge pages, and a freed buffer's pages leave the resident set at once.
#include "core/backend/cpu_backend.h"
#include "core/backend/huge_pages.h"
#include "core/nn/device_weights.h"
#include "engine_test_model.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include <sys/sysinfo.h>

using namespace hearsay;

namespace {

// MemAvailable in bytes, read here with Qt (independently of the backend's parser); 0 when absent.
double memAvailable() {
    QFile file("/proc/meminfo");
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return 0.0;
    const QRegularExpression line("^MemAvailable:\\s+(\\d+) kB$", QRegularExpression::MultilineOption);
    const QRegularExpressionMatch match = line.match(QString::fromLatin1(file.readAll()));
    return match.hasMatch() ? match.captured(1).toDouble() * 1024.0 : 0.0;
}

// Resident kB of this process's mappings of `file` (/proc/self/smaps).
long residentKbOf(const std::string& file) {
    QFile smaps("/proc/self/smaps");
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text)) return -1;
    const QRegularExpression mapping("^[0-9a-f]+-[0-9a-f]+ "), spaces("\\s+");
    const QString name = QString::fromStdString(file);
    long total = 0;
    bool inFile = false;
    const QStringList lines = QString::fromLatin1(smaps.readAll()).split('\n');
    for (const QString& line : lines) {
        if (mapping.match(line).hasMatch()) {
            inFile = line.endsWith(name);
        } else if (inFile && line.startsWith("Rss:")) {
            total += line.section(spaces, 1, 1).toLong();
        }
    }
    return total;
}

// The smaps lines of the mapping that holds `address`: its Rss in kB, and whether the kernel
// may back it with huge pages (THPeligible).
struct MappingPages {
    long residentKb = -1;
    bool hugePageEligible = false;
};
MappingPages mappingHolding(const void* address) {
    QFile smaps("/proc/self/smaps");
    MappingPages found;
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text)) return found;
    const QRegularExpression range("^([0-9a-f]+)-([0-9a-f]+) "), spaces("\\s+");
    const auto at = reinterpret_cast<qulonglong>(address);
    bool inside = false;
    const QStringList lines = QString::fromLatin1(smaps.readAll()).split('\n');
    for (const QString& line : lines) {
        if (const QRegularExpressionMatch m = range.match(line); m.hasMatch()) {
            inside = m.captured(1).toULongLong(nullptr, 16) <= at && at < m.captured(2).toULongLong(nullptr, 16);
        } else if (inside && line.startsWith("Rss:")) {
            found.residentKb = line.section(spaces, 1, 1).toLong();
        } else if (inside && line.startsWith("THPeligible:")) {
            found.hugePageEligible = line.section(spaces, 1, 1) == "1";
        }
    }
    return found;
}

// An f16 matrix of `rows` x `cols` in `storage`, every value distinct from its neighbours.
TensorView halfMatrix(std::vector<uint16_t>& storage, int64_t rows, int64_t cols, uint16_t seed) {
    storage.resize(size_t(rows * cols));
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = uint16_t(0x3000 + (i * 7 + seed) % 0x0c00);
    TensorView view;
    view.name = "test.f16";
    view.dtype = DType::F16;
    view.shape = {rows, cols};
    view.data = reinterpret_cast<const std::byte*>(storage.data());
    view.bytes = storage.size() * sizeof(uint16_t);
    return view;
}

// A checksum of every weight byte (reads each page of the map).
uint64_t weightChecksum(const WhisperModel& model) {
    uint64_t sum = 0;
    auto add = [&](const TensorView& v) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(v.data);
        for (size_t i = 0; i < v.bytes; ++i) sum = sum * 1099511628211ull + bytes[i];
    };
    const WhisperWeights& w = model.weights();
    add(w.tokenEmbedding);
    for (const auto& layer : w.encoderLayers) {
        add(layer.fc1.weight);
        add(layer.fc2.weight);
    }
    for (const auto& layer : w.decoderLayers) add(layer.fc1.weight);
    return sum;
}

} // namespace

class TestBackendMemory : public QObject {
    Q_OBJECT
private slots:
    void cpuReportsSystemMemory() {
        CpuBackend backend(1);
        const DeviceMemory memory = backend.memoryInfo();
        QVERIFY(memory.known);
        QVERIFY(!memory.gpu);
        QCOMPARE(QString::fromStdString(memory.name), QString("system RAM"));
        struct sysinfo info {};
        QCOMPARE(sysinfo(&info), 0);
        // MemTotal and sysinfo's totalram are the same kernel counter (meminfo rounds to kB).
        const size_t total = size_t(info.totalram) * info.mem_unit;
        QVERIFY2(memory.totalBytes <= total && total - memory.totalBytes < 1024,
                 qPrintable(QString("%1 vs %2").arg(memory.totalBytes).arg(total)));
        // Available memory counts free pages plus reclaimable caches: above 0, below the total, and
        // at least what sysinfo calls free minus the kernel's reserves (allow 10% of the total).
        QVERIFY(memory.freeBytes > 0);
        QVERIFY(memory.freeBytes < memory.totalBytes);
        const size_t freeRam = size_t(info.freeram) * info.mem_unit;
        QVERIFY2(memory.freeBytes + memory.totalBytes / 10 >= freeRam,
                 qPrintable(QString("available %1, free %2").arg(memory.freeBytes).arg(freeRam)));

        // A live reading, not a cached one: between two readings of /proc/meminfo made here (other
        // processes move it; a margin of 64 MiB).
        const double first = memAvailable(), ours = double(backend.memoryInfo().freeBytes), second = memAvailable();
        QVERIFY(first > 0.0 && second > 0.0);
        const double margin = 64.0 * 1048576.0;
        QVERIFY2(ours >= std::min(first, second) - margin && ours <= std::max(first, second) + margin,
                 qPrintable(QString("%1 between %2 and %3").arg(ours).arg(first).arg(second)));
    }

    void sessionStatsCarryTheDeviceMemory() {
        auto backend = test::cpuBackend(1);
        auto model = test::makeRandomModel(test::customConfig(64, 2, 2), 1);
        auto session = InferenceSession::create(model, backend, SessionOptions{});
        QVERIFY2(session.ok(), session.ok() ? "" : session.message().c_str());
        const KvCacheStats stats = session.value()->cacheStats();
        QVERIFY(stats.device.known);
        QVERIFY(!stats.device.gpu);
        QCOMPARE(stats.device.totalBytes, backend->memoryInfo().totalBytes);
        QVERIFY(stats.device.freeBytes > 0 && stats.device.freeBytes < stats.device.totalBytes);
    }

    void modelMapIsGivenBackAfterLoadAndUpload() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("model").toStdString();
        QVERIFY(test::writeTestModel(path, "128x2x2", 3, DType::F16).ok());
        const std::string weights = path + "/model.safetensors";
        auto model = WhisperModel::load(path);
        QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
        // The load read every weight (the finite-value scan) and gave the pages back.
        QCOMPARE(residentKbOf(weights), 0L);
        const uint64_t before = weightChecksum(*model.value());
        const long read = residentKbOf(weights);
        QVERIFY2(read > 1000, qPrintable(QString::number(read)));  // the f16 embedding alone is 13 MB
        // One tensor's pages given back (as the backend does after each copy): the rest stay.
        const TensorView& embedding = model.value()->weights().tokenEmbedding;
        QVERIFY(embedding.bytes > 8u << 20);
        model.value()->releaseResidentPages(embedding);
        const long rest = residentKbOf(weights);
        QVERIFY2(rest <= read - long(embedding.bytes / 1024) + 8 && rest > 0,
                 qPrintable(QString("%1 kB of %2 after giving back %3")
                                .arg(rest)
                                .arg(read)
                                .arg(embedding.bytes / 1024)));
        // A view of memory outside the model's maps is left alone (no advice on the heap).
        std::vector<uint16_t> heap;
        const TensorView outside = halfMatrix(heap, 512, 512, 3);
        model.value()->releaseResidentPages(outside);
        QCOMPARE(heap[1000], uint16_t(0x3000 + (1000 * 7 + 3) % 0x0c00));
        // The backend's copies made, the map is given back again; the weights read the same.
        auto uploaded = DeviceWeights::upload(model.value(), test::cpuBackend(1));
        QVERIFY2(uploaded.ok(), uploaded.ok() ? "" : uploaded.message().c_str());
        QCOMPARE(residentKbOf(weights), 0L);
        QCOMPARE(weightChecksum(*model.value()), before);
    }

    void weightsAreCopiesPackedInHugePages() {
        CpuBackend backend(1);
        std::vector<uint16_t> a, b, c;
        std::vector<std::unique_ptr<DeviceBuffer>> buffers;
        for (auto [storage, rows, seed] : {std::tuple{&a, 384, 1}, std::tuple{&b, 384, 2}, std::tuple{&c, 1536, 3}}) {
            const TensorView view = halfMatrix(*storage, rows, 384, uint16_t(seed));
            buffers.push_back(backend.loadWeight(view));
            const auto* copy = static_cast<const std::byte*>(buffers.back()->address());
            QVERIFY(copy != view.data);
            QCOMPARE(reinterpret_cast<uintptr_t>(copy) % 64, uintptr_t(0));
            QCOMPARE(std::memcmp(copy, view.data, view.bytes), 0);
            storage->assign(storage->size(), 0);  // the source may go once loadWeight returned
            QVERIFY(std::memcmp(copy, view.data, 64) != 0);
        }
        // Packed one after another in one mapping: tiny's small matrices share huge pages.
        const auto first = reinterpret_cast<uintptr_t>(buffers[0]->address());
        QCOMPARE(reinterpret_cast<uintptr_t>(buffers[1]->address()), first + 384 * 384 * 2);
        QCOMPARE(reinterpret_cast<uintptr_t>(buffers[2]->address()), first + 2 * 384 * 384 * 2);
        QCOMPARE(first % HugePageMapping::kPageBytes, uintptr_t(0));
        if (HugePageMapping::systemGrants()) QVERIFY(mappingHolding(buffers[0]->address()).hugePageEligible);

        // A freed weight's pages leave the resident set, whichever weights keep the mapping.
        const long before = mappingHolding(buffers[0]->address()).residentKb;
        const void* kept = buffers[0]->address();
        buffers.pop_back();  // the 1536 x 384 matrix: 1152 KiB
        const long after = mappingHolding(kept).residentKb;
        QVERIFY2(after >= 0 && after <= before - 1100, qPrintable(QString("%1 -> %2 kB").arg(before).arg(after)));
        QCOMPARE(static_cast<const uint16_t*>(kept)[5], uint16_t(0x3000 + (5 * 7 + 1) % 0x0c00));
    }

    void crossCacheIsPackedInHugePages() {
        // The keys and values of medium's cross cache, layer after layer, in half: each 2.9 MiB.
        CpuBackend backend(1, Precision::Fp16);
        const size_t elements = size_t(1500) * 1024, bytes = elements * sizeof(uint16_t);
        std::vector<std::unique_ptr<DeviceBuffer>> cache;
        for (int i = 0; i < 6; ++i) cache.push_back(backend.allocateKv(elements));
        const auto first = reinterpret_cast<uintptr_t>(cache[0]->address());
        QCOMPARE(first % HugePageMapping::kPageBytes, uintptr_t(0));
        for (size_t i = 1; i < cache.size(); ++i) {  // one after another in one mapping, not each in its own
            QCOMPARE(reinterpret_cast<uintptr_t>(cache[i]->address()), first + i * bytes);
        }
        for (const auto& buffer : cache) {  // new buffers read as zeros
            const auto* half = static_cast<const uint16_t*>(buffer->address());
            QVERIFY(std::all_of(half, half + elements, [](uint16_t h) { return h == 0; }));
        }
        if (HugePageMapping::systemGrants()) QVERIFY(mappingHolding(cache[0]->address()).hugePageEligible);

        // A freed buffer's pages leave the resident set; its neighbours keep their values.
        for (const auto& buffer : cache) std::memset(buffer->address(), 0x3c, bytes);
        const long before = mappingHolding(cache[0]->address()).residentKb;
        cache.erase(cache.begin() + 2);
        const long after = mappingHolding(cache[0]->address()).residentKb;
        QVERIFY2(after >= 0 && after <= before - 2048, qPrintable(QString("%1 -> %2 kB").arg(before).arg(after)));
        QCOMPARE(static_cast<const uint16_t*>(cache[2]->address())[0], uint16_t(0x3c3c));
        QCOMPARE(static_cast<const uint16_t*>(cache[1]->address())[elements - 1], uint16_t(0x3c3c));
    }

    void failedAllocationNamesTheBytes() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        QSKIP("the sanitizers abort on impossible allocations instead of failing them");
#endif
        CpuBackend backend(1);
        const size_t elements = size_t(1) << 46;  // 256 TiB of float32: beyond the address space
        try {
            auto buffer = backend.allocate(elements);
            QFAIL("a 256 TiB allocation succeeded");
        } catch (const std::bad_alloc& e) {
            const std::string text = e.what();
            QVERIFY2(text.find("out of memory") != std::string::npos, e.what());
            QVERIFY2(text.find(std::to_string(elements * sizeof(float)) + " bytes") != std::string::npos, e.what());
            QVERIFY2(text.find("262144.00 GiB") != std::string::npos, e.what());
            QVERIFY2(text.find("available of") != std::string::npos, e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestBackendMemory)
#include "tst_backend_memory.moc"
