// Backend::memoryInfo on the CPU (system RAM from /proc/meminfo, checked against the kernel's
// sysinfo()), the same figures in a session's cacheStats(), and allocation failures whose text
// names the bytes requested and the memory available.
#include "core/backend/cpu_backend.h"
#include "engine_test_model.h"

#include <QFile>
#include <QRegularExpression>
#include <QtTest>

#include <algorithm>
#include <new>
#include <string>

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
