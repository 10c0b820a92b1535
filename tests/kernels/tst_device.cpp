// The CUDA device query: on a machine with a GPU it must report a usable device with sane
// properties; without one it must say why (the runtime's error) and the suite skips.
#include "kernels/device_info.h"

#include <QtTest>

class TestDevice : public QObject {
    Q_OBJECT
private slots:
    void reportsDevicesOrWhyNot() {
        const auto query = hearsay::cuda::queryDevices();
        if (query.devices.empty()) {
            QVERIFY2(!query.error.empty(), "no device and no reason given");
            QSKIP(qPrintable(QString("no GPU: %1").arg(QString::fromStdString(query.error))));
        }
        QVERIFY(query.error.empty());
        QVERIFY(query.runtimeVersion > 0);
        QVERIFY(query.driverVersion > 0);
        for (const auto& d : query.devices) {
            qInfo("GPU %d: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f GiB free)", d.index, d.name.c_str(), d.computeMajor,
                  d.computeMinor, d.multiprocessors, double(d.totalMemory) / (1ull << 30), double(d.freeMemory) / (1ull << 30));
            QVERIFY(!d.name.empty());
            QVERIFY(d.computeMajor >= 7);
            QVERIFY(d.multiprocessors > 0);
            QVERIFY(d.totalMemory > 0);
            QVERIFY(d.freeMemory > 0 && d.freeMemory <= d.totalMemory);
        }
    }
};

QTEST_APPLESS_MAIN(TestDevice)
#include "tst_device.moc"
