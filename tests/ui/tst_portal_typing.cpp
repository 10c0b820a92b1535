// Typing from the desktop application through the RemoteDesktop portal (ui/dictate_anywhere.h), as
// on GNOME and KDE Wayland sessions: the real xdg-desktop-portal on a private session bus with a
// backend of the test's own in the desktop's place (tests/core/portal_bus.h), which answers the
// keyboard question 2 s after it was asked, as a user reading the desktop's dialog would.
// - While the question is open the window's event loop keeps turning, the panel's status says what
//   Hearsay waits for, and pieces committed meanwhile wait; after the answer they are typed, in
//   order and spaced, key symbol by key symbol, and the next piece is typed at once.
// - The user says no: the run fails with the desktop's answer in one line, and nothing is typed.
#include "tests/core/portal_bus.h"
#include "tests/core/portal_keys.h"
#include "ui/anywhere_settings.h"
#include "ui/dictate_anywhere.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace hearsay;

namespace {

constexpr int kAnswerMs = 2000;  // the backend's answer to Start comes this long after it was asked

ui::AnywhereSettings typingOnly() {
    ui::AnywhereSettings s;
    s.shortcut.clear();  // no global shortcut: the test commits text itself
    s.typeText = true;
    s.insertion = InsertionMode::Type;
    return s;
}

} // namespace

class TestPortalTyping : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_skip;
    int m_case = 0;

    QString caseDir() {
        const QString dir = m_dir.filePath(QString("case-%1").arg(++m_case));
        QDir().mkpath(dir);
        return dir;
    }

    // Starts `portal` with the desktop's `options`, and makes this process a program of a GNOME
    // Wayland session on its bus; empty, or what went wrong.
    QString joinSession(test::PortalBus& portal, const QStringList& options) {
        const QString failed = portal.start(caseDir(), PORTAL_DESKTOP_PATH, options);
        if (!failed.isEmpty()) return failed;
        qputenv("DBUS_SESSION_BUS_ADDRESS", portal.address().toUtf8());
        qputenv("WAYLAND_DISPLAY", "wayland-portal-test");  // a Wayland session (nothing connects to it)
        qputenv("XDG_CURRENT_DESKTOP", "GNOME");
        qunsetenv("DISPLAY");
        qunsetenv("HEARSAY_TYPER");
        return {};
    }

private slots:
    void initTestCase() {
        m_skip = test::PortalBus::missing();
        QVERIFY(m_dir.isValid());
        qputenv("XDG_STATE_HOME", m_dir.filePath("state").toUtf8());
    }

    void init() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    }

    void typesOnceTheDesktopHasAnswered() {
        test::PortalBus portal;
        const QString failed = joinSession(portal, {QString("--start-after-ms=%1").arg(kAnswerMs)});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        ui::DictateAnywhere anywhere;
        anywhere.apply(typingOnly());
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        QSignalSpy typingFailed(&anywhere, &ui::DictateAnywhere::typingFailed);
        int ticks = 0;  // the event loop's turns while the desktop asks
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, [&ticks] { ++ticks; });
        ticker.start(50);

        anywhere.runStarted();
        QElapsedTimer clock;
        clock.start();
        anywhere.committed("Hallo", false);
        QVERIFY2(clock.elapsed() < kAnswerMs / 2, qPrintable(QString("committed() took %1 ms").arg(clock.elapsed())));
        QVERIFY2(anywhere.typingStatus().contains("waiting for the desktop"), qPrintable(anywhere.typingStatus()));
        anywhere.committed("Welt,", false);  // while the question is open: waits behind the first
        QVERIFY(portal.waitForLine("rd-start", 10000));
        QCOMPARE(inserted.count(), 0);

        QTRY_COMPARE_WITH_TIMEOUT(inserted.count(), 1, 20000);
        QCOMPARE(inserted.at(0).at(0).toString(), QString("Hallo Welt,"));
        QCOMPARE(inserted.at(0).at(1).toString(), QString());  // typed, not pasted
        QVERIFY2(ticks >= kAnswerMs / 50 / 2, qPrintable(QString("%1 turns of the event loop").arg(ticks)));
        QVERIFY2(anywhere.typingStatus().contains("RemoteDesktop portal"), qPrintable(anywhere.typingStatus()));
        QVERIFY(portal.waitForLine("rd-answer", 1000));

        // The session is open now: the next piece goes in at once.
        anywhere.committed("wie geht's?", false);
        QCOMPARE(inserted.count(), 2);
        QVERIFY(portal.waitForLine("keysym 63 0", 10000));  // the release of the last '?'
        const test::TypedKeys typed = test::keysOf(portal.said());
        QCOMPARE(typed.text, QString("Hallo Welt, wie geht's?"));
        QVERIFY2(typed.problems.isEmpty(), qPrintable(typed.problems));
        QCOMPARE(typingFailed.count(), 0);
    }

    void theUserSaysNo() {
        test::PortalBus portal;
        const QString failed = joinSession(portal, {"--refuse-start", QString("--start-after-ms=%1").arg(kAnswerMs / 4)});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        ui::DictateAnywhere anywhere;
        anywhere.apply(typingOnly());
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        QSignalSpy typingFailed(&anywhere, &ui::DictateAnywhere::typingFailed);
        anywhere.runStarted();
        anywhere.committed("Hallo", false);
        QVERIFY(typingFailed.wait(20000));
        const QString why = typingFailed.at(0).at(0).toString();
        QVERIFY2(why.contains("answered no"), qPrintable(why));
        QVERIFY2(anywhere.typingStatus().contains("answered no"), qPrintable(anywhere.typingStatus()));
        anywhere.committed("Welt", false);  // the run has failed: nothing more goes
        QTest::qWait(300);
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(test::keysOf(portal.said()).text, QString());
        QCOMPARE(typingFailed.count(), 1);
    }
};

QTEST_MAIN(TestPortalTyping)
#include "tst_portal_typing.moc"
