// `hearsay --dictate ACTION` and a second start reach the running instance over D-Bus
// (ui/dictation_bus.h): a private dbus-daemon stands in for the session bus, the test holds the
// service as the running Hearsay would, and the real hearsay binary is the client.
#include "ui/dictation_bus.h"

#include <QDBusConnection>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using hearsay::ui::DictationBus;

class TestDictationBus : public QObject {
    Q_OBJECT
    QProcess m_daemon;
    QString m_address;
    QTemporaryDir m_home;

    struct Run {
        int exitCode = -1;
        QString out, err;
    };
    // The private bus, and a home of the test's own (no user settings read or written).
    QProcessEnvironment environment() const {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("DBUS_SESSION_BUS_ADDRESS", m_address);
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", m_home.filePath("config"));
        env.insert("XDG_DATA_HOME", m_home.filePath("data"));
        return env;
    }

    // The real hearsay, on the private bus; the event loop runs meanwhile, so the service held
    // by this process answers.
    Run hearsay(const QStringList& args) {
        QProcess p;
        p.setProcessEnvironment(environment());
        QSignalSpy finished(&p, &QProcess::finished);
        p.start(HEARSAY_GUI_PATH, args);
        if (!finished.wait(30000)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()).trimmed(),
                QString::fromUtf8(p.readAllStandardError())};
    }

private slots:
    void initTestCase() {
        if (QStandardPaths::findExecutable("dbus-daemon").isEmpty()) QFAIL("dbus-daemon is not installed (scripts/setup.sh)");
        m_daemon.start("dbus-daemon", {"--session", "--nofork", "--print-address=1"});
        QVERIFY(m_daemon.waitForStarted());
        QVERIFY(m_daemon.waitForReadyRead(10000));
        m_address = QString::fromUtf8(m_daemon.readLine()).trimmed();
        QVERIFY2(m_address.startsWith("unix:"), qPrintable(m_address));
    }

    void cleanupTestCase() {
        m_daemon.terminate();
        m_daemon.waitForFinished();
    }

    void notRunning() {
        // Nobody holds the service: stop, status and raise say so and fail; an unknown action too.
        for (const char* action : {"stop", "status", "raise"}) {
            const Run r = hearsay({"--dictate", action});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("Hearsay is not running"), qPrintable(r.err));
        }
        const Run bad = hearsay({"--dictate", "sing"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains("unknown action"), qPrintable(bad.err));
    }

    void requestsReachTheRunningInstance() {
        QDBusConnection bus = QDBusConnection::connectToBus(m_address, "running");
        QVERIFY(bus.isConnected());
        bool recording = false;
        DictationBus service([&recording] { return recording; });
        QSignalSpy toggles(&service, &DictationBus::toggleRequested);
        QSignalSpy starts(&service, &DictationBus::startRequested);
        QSignalSpy stops(&service, &DictationBus::stopRequested);
        QSignalSpy raises(&service, &DictationBus::raiseRequested);
        connect(&service, &DictationBus::toggleRequested, this, [&recording] { recording = !recording; });
        connect(&service, &DictationBus::startRequested, this, [&recording] { recording = true; });
        connect(&service, &DictationBus::stopRequested, this, [&recording] { recording = false; });
        QString why;
        QVERIFY2(service.publish(bus, &why), qPrintable(why));

        // A second instance cannot take the name.
        QDBusConnection other = QDBusConnection::connectToBus(m_address, "second");
        DictationBus second([] { return false; });
        QVERIFY(!second.publish(other, &why));
        QVERIFY2(why.contains("another Hearsay"), qPrintable(why));

        Run r = hearsay({"--dictate", "toggle"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString("recording"));
        QCOMPARE(toggles.size(), 1);
        QVERIFY(recording);
        r = hearsay({"--dictate", "status"});
        QCOMPARE(r.out, QString("recording"));
        r = hearsay({"--dictate", "start"});  // already recording: nothing to do
        QCOMPARE(r.out, QString("recording"));
        QCOMPARE(starts.size(), 0);
        r = hearsay({"--dictate", "stop"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString("idle"));
        QCOMPARE(stops.size(), 1);
        QVERIFY(!recording);
        r = hearsay({"--dictate", "start"});
        QCOMPARE(r.out, QString("recording"));
        QCOMPARE(starts.size(), 1);
        r = hearsay({"--dictate", "toggle"});
        QCOMPARE(r.out, QString("idle"));
        QCOMPARE(toggles.size(), 2);

        // A second plain start raises the running window instead of starting another engine.
        r = hearsay({});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("already running"), qPrintable(r.err));
        QCOMPARE(raises.size(), 1);

        bus.unregisterService(DictationBus::kService);
        r = hearsay({"--dictate", "stop"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("Hearsay is not running"), qPrintable(r.err));
    }

    void theApplicationTakesTheName() {
        // The real window (the user's instance: no --settings of its own) publishes the service:
        // requests reach it, and a second start hands over to it.
        QProcess app;
        app.setProcessEnvironment(environment());
        app.start(HEARSAY_GUI_PATH, {});
        QVERIFY(app.waitForStarted());
        Run r;
        for (int attempt = 0; attempt < 100 && r.exitCode != 0; ++attempt) {  // until its window is up
            r = hearsay({"--dictate", "status"});
            if (r.exitCode != 0) QTest::qWait(200);
        }
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString("idle"));
        r = hearsay({});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("already running (idle)"), qPrintable(r.err));
        QCOMPARE(app.state(), QProcess::Running);
        app.terminate();
        QVERIFY(app.waitForFinished(10000));
        r = hearsay({"--dictate", "status"});
        QCOMPARE(r.exitCode, 1);
    }
};

QTEST_MAIN(TestDictationBus)
#include "tst_dictation_bus.moc"
