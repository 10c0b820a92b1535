// Backend selection in a build with CUDA: without a usable GPU, Auto gives the CPU backend and
// Cuda a clear error of kind Device carrying the runtime's reason (this part runs on every
// machine); with one, both give the CUDA backend and a device that does not exist is an error.
#include "core/engine/backend_factory.h"
#include "kernels/cuda_backend_factory.h"
#include "kernels/device_info.h"

#include <QtTest>

using namespace hearsay;

class TestCudaFactory : public QObject {
    Q_OBJECT
private slots:
    void selection() {
        const auto query = cuda::queryDevices();
        std::string why;
        QCOMPARE(cudaDeviceAvailable(0, &why), !query.devices.empty());
        auto automatic = createBackend(BackendKind::Auto, {1, 0});
        QVERIFY2(automatic.ok(), automatic.ok() ? "" : automatic.message().c_str());
        auto cuda = createBackend(BackendKind::Cuda, {1, 0});
        if (query.devices.empty()) {
            qInfo("no GPU: %s", why.c_str());
            QCOMPARE(why, query.error);
            QCOMPARE(automatic.value()->kind(), BackendKind::Cpu);
            QVERIFY(!cuda.ok());
            const QString message = QString::fromStdString(cuda.message());
            qInfo("--backend cuda: %s", qPrintable(message));
            QVERIFY2(message.contains("CUDA") && message.contains(QString::fromStdString(query.error)),
                     qPrintable(message));
            // The kind tells callers the device failed; advice ("--backend cpu") is the CLI's to add.
            QCOMPARE(cuda.kind(), ErrorKind::Device);
            QVERIFY2(!message.contains("--backend"), qPrintable(message));
            return;
        }
        QCOMPARE(automatic.value()->kind(), BackendKind::Cuda);
        QVERIFY2(cuda.ok(), cuda.ok() ? "" : cuda.message().c_str());
        QCOMPARE(cuda.value()->kind(), BackendKind::Cuda);
        QVERIFY(QString::fromStdString(cuda.value()->name()).startsWith("cuda ("));
        QVERIFY(cuda.value()->name().find(query.devices[0].name) != std::string::npos);
        auto missing = createBackend(BackendKind::Cuda, {1, int(query.devices.size()) + 3});
        QVERIFY(!missing.ok());
        QCOMPARE(missing.kind(), ErrorKind::Device);
        QVERIFY2(QString::fromStdString(missing.message()).contains("does not exist"), missing.message().c_str());
        QVERIFY(!cudaDeviceAvailable(-1, &why));
        QVERIFY(!cudaDeviceAvailable(int(query.devices.size()), &why));
        QVERIFY2(QString::fromStdString(why).contains("does not exist"), why.c_str());
    }

    void cpuStillAvailable() {
        auto cpu = createBackend(BackendKind::Cpu, {1, 0});
        QVERIFY(cpu.ok());
        QCOMPARE(cpu.value()->kind(), BackendKind::Cpu);
    }
};

QTEST_APPLESS_MAIN(TestCudaFactory)
#include "tst_cuda_factory.moc"
