// CudaBackend::memoryInfo (cudaMemGetInfo on the backend's device, also from a thread that never
// touched CUDA) and out of GPU memory: an allocation larger than the GPU throws a std::bad_alloc
// naming the bytes and the free/total memory, a KV cache that does not fit fails with what it
// needed, and the backend stays usable afterwards. Skips without a GPU.
#include "cuda_test_support.h"

#include "core/engine/backend_factory.h"
#include "core/nn/kv_cache.h"
#include "kernels/device_info.h"

#include <QtTest>

#include <new>
#include <string>
#include <thread>

using namespace hearsay;

class TestCudaMemory : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<Backend> m_gpu;
    cuda::DeviceInfo m_device;

private slots:
    void initTestCase() {
        if (const QString why = test::missingGpuReason(); !why.isEmpty()) QSKIP(qPrintable(why));
        auto gpu = createBackend(BackendKind::Cuda);
        QVERIFY2(gpu.ok(), gpu.ok() ? "" : gpu.message().c_str());
        m_gpu = gpu.value();
        m_device = cuda::queryDevices().devices.at(0);
    }

    void reportsTheDevicesMemory() {
        const DeviceMemory memory = m_gpu->memoryInfo();
        QVERIFY(memory.known);
        QVERIFY(memory.gpu);
        QCOMPARE(QString::fromStdString(memory.name), QString("GPU 0 (%1)").arg(QString::fromStdString(m_device.name)));
        // cudaMemGetInfo's total leaves out what the driver reserves: at most totalGlobalMem.
        QVERIFY2(memory.totalBytes <= m_device.totalMemory && memory.totalBytes > m_device.totalMemory / 10 * 9,
                 qPrintable(QString("%1 of %2").arg(memory.totalBytes).arg(m_device.totalMemory)));
        QVERIFY(memory.freeBytes > 0 && memory.freeBytes < memory.totalBytes);

        // The same figures from a thread that never made the device current (the GUI's).
        DeviceMemory other;
        std::thread([&] { other = m_gpu->memoryInfo(); }).join();
        QVERIFY(other.known);
        QCOMPARE(other.totalBytes, memory.totalBytes);
    }

    void seesAllocations() {
        const size_t bytes = size_t(1) << 30;
        // Other processes may share the GPU: the drop is near 1 GiB (cudaMalloc rounds up to its pages).
        const DeviceMemory before = m_gpu->memoryInfo();
        auto buffer = m_gpu->allocate(bytes / sizeof(float));
        const DeviceMemory after = m_gpu->memoryInfo();
        const double drop = double(before.freeBytes) - double(after.freeBytes);
        QVERIFY2(drop > 0.9 * double(bytes), qPrintable(QString("free memory fell by %1 bytes").arg(drop)));
        buffer.reset();
        const DeviceMemory freed = m_gpu->memoryInfo();
        QVERIFY2(double(freed.freeBytes) - double(after.freeBytes) > 0.9 * double(bytes),
                 qPrintable(QString("%1 free after cudaFree, %2 before").arg(freed.freeBytes).arg(after.freeBytes)));
    }

    void outOfMemoryNamesTheBytes() {
        const DeviceMemory memory = m_gpu->memoryInfo();
        const size_t elements = (memory.totalBytes + (size_t(1) << 30)) / sizeof(float);  // 1 GiB more than the GPU
        try {
            auto buffer = m_gpu->allocate(elements);
            QFAIL("an allocation larger than the GPU succeeded");
        } catch (const std::bad_alloc& e) {
            const std::string text = e.what();
            QVERIFY2(text.find("out of memory") != std::string::npos, e.what());
            QVERIFY2(text.find(std::to_string(elements * sizeof(float)) + " bytes") != std::string::npos, e.what());
            QVERIFY2(text.find("free of") != std::string::npos, e.what());
        }

        // A cache larger than the GPU: the error says what it needed.
        const int width = int(memory.totalBytes / (2 * 448 * sizeof(float)) / 4) + 1;  // 4 layers over the total
        KvCache cache("self-attention", {4, 1, 448, width});
        auto ok = cache.allocate(*m_gpu);
        QVERIFY(!ok.ok());
        const double needed = 2.0 * 4 * 448 * double(width) * sizeof(float);
        QVERIFY2(ok.message().find(QString::number(needed, 'f', 0).toStdString() + " bytes") != std::string::npos,
                 ok.message().c_str());
        QVERIFY2(ok.message().find("free of") != std::string::npos, ok.message().c_str());
        QCOMPARE(cache.allocatedBytes(), size_t(0));

        // The failure left nothing behind: the backend allocates and copies as before.
        const std::vector<float> host = test::randomFloats(1000, 3);
        auto buffer = m_gpu->allocate(host.size());
        m_gpu->upload(BufferView(buffer.get()), host.data(), host.size());
        QCOMPARE(test::readBack(*m_gpu, *buffer), host);
    }
};

QTEST_APPLESS_MAIN(TestCudaMemory)
#include "tst_cuda_memory.moc"
