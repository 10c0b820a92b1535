// The global shortcut through the XDG desktop portal (ui/portal_shortcut.h, ui/global_shortcut.h),
// as on GNOME and KDE Wayland sessions: the real xdg-desktop-portal on a private session bus with a
// backend of the test's own in the desktop's place (tests/core/portal_bus.h), which reports the
// binding it is asked for and sends Activated and Deactivated when told to (a key of the desktop
// going down and up).
// - In a Wayland session the Dictate anywhere shortcut is bound through the portal: the preferred
//   trigger is Qt's combination in the XDG shortcut spec's words, the status says the portal and
//   the desktop's words for the keys; toggle turns a press into toggleRequested, push-to-talk a
//   press and a release into startRequested and stopRequested; a new shortcut rebinds.
// - The user says no: the status says so in one line, nothing is active.
// - A portal without GlobalShortcuts (the frontend with no backend for it): available() says why.
#include "tests/core/portal_bus.h"
#include "ui/anywhere_settings.h"
#include "ui/dictate_anywhere.h"
#include "ui/portal_shortcut.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace hearsay;

class TestPortalShortcut : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_skip;
    test::PortalBus m_portal;  // this process's session bus (the first use of it comes after start)
    int m_case = 0;

    QString caseDir() {
        const QString dir = m_dir.filePath(QString("case-%1").arg(++m_case));
        QDir().mkpath(dir);
        return dir;
    }

    static ui::AnywhereSettings settings(const QString& shortcut, bool pushToTalk) {
        ui::AnywhereSettings s;
        s.shortcut = shortcut;
        s.pushToTalk = pushToTalk;
        s.typeText = false;
        return s;
    }

private slots:
    void initTestCase() {
        m_skip = test::PortalBus::missing();
        if (!m_skip.isEmpty()) return;
        QVERIFY(m_dir.isValid());
        const QString failed = m_portal.start(caseDir(), PORTAL_DESKTOP_PATH);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        qputenv("DBUS_SESSION_BUS_ADDRESS", m_portal.address().toUtf8());
        qputenv("WAYLAND_DISPLAY", "wayland-portal-test");  // a Wayland session (nothing connects to it)
        qunsetenv("DISPLAY");
        qunsetenv("HEARSAY_SHORTCUT");
    }

    void init() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    }

    void triggerText() {
        QCOMPARE(ui::PortalShortcut::triggerFor("Ctrl+Alt+D"), QString("CTRL+ALT+d"));
        QCOMPARE(ui::PortalShortcut::triggerFor("Meta+Shift+F9"), QString("SHIFT+LOGO+F9"));
        QCOMPARE(ui::PortalShortcut::triggerFor("Ctrl+Space"), QString("CTRL+space"));
        QCOMPARE(ui::PortalShortcut::triggerFor("Ctrl+Alt+D, X"), QString());  // two combinations
    }

    void toggleAndPushToTalkThroughThePortal() {
        ui::DictateAnywhere anywhere;
        QSignalSpy status(&anywhere, &ui::DictateAnywhere::statusChanged);
        QSignalSpy toggle(&anywhere, &ui::DictateAnywhere::toggleRequested),
            start(&anywhere, &ui::DictateAnywhere::startRequested), stop(&anywhere, &ui::DictateAnywhere::stopRequested);
        anywhere.apply(settings("Ctrl+Alt+D", false));
        QVERIFY2(anywhere.shortcutStatus().contains("waiting for the desktop"), qPrintable(anywhere.shortcutStatus()));
        QTRY_VERIFY2_WITH_TIMEOUT(anywhere.shortcut().active(), qPrintable(anywhere.shortcutStatus()), 10000);
        QVERIFY(m_portal.waitForLine("gs-bind dictate CTRL+ALT+d Start or stop dictation (Hearsay)", 5000));
        // The desktop's words for the keys (this backend repeats the preferred trigger).
        QCOMPARE(anywhere.shortcutStatus(), QString("desktop portal (GlobalShortcuts): CTRL+ALT+d"));
        QVERIFY(status.count() >= 2);  // asked, then answered

        m_portal.tellDesktop("press dictate");
        QTRY_COMPARE_WITH_TIMEOUT(toggle.count(), 1, 10000);
        QVERIFY(anywhere.shortcut().isDown());
        m_portal.tellDesktop("release dictate");
        QTRY_VERIFY_WITH_TIMEOUT(!anywhere.shortcut().isDown(), 10000);
        QCOMPARE(toggle.count(), 1);  // toggle acts on the press only

        anywhere.apply(settings("Meta+F9", true));  // push-to-talk, another key: bound anew
        QTRY_VERIFY2_WITH_TIMEOUT(anywhere.shortcut().active(), qPrintable(anywhere.shortcutStatus()), 10000);
        QVERIFY(m_portal.waitForLine("gs-bind dictate LOGO+F9", 5000));
        m_portal.tellDesktop("press dictate");
        QTRY_COMPARE_WITH_TIMEOUT(start.count(), 1, 10000);
        QCOMPARE(stop.count(), 0);
        m_portal.tellDesktop("release dictate");
        QTRY_COMPARE_WITH_TIMEOUT(stop.count(), 1, 10000);
        QCOMPARE(toggle.count(), 1);

        anywhere.apply(settings(QString(), false));  // no shortcut: the session ends
        QVERIFY(!anywhere.shortcut().active());
        QVERIFY(m_portal.waitForLine("session-close", 10000));
        m_portal.tellDesktop("press dictate");
        QTest::qWait(300);
        QCOMPARE(start.count() + toggle.count(), 2);  // nothing more
    }

    // The user answers no; the shortcut is not active and the status says why.
    void theUserSaysNo() {
        test::PortalBus refusing;
        const QString failed = refusing.start(caseDir(), PORTAL_DESKTOP_PATH, {"--refuse-shortcuts"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QDBusConnection bus = QDBusConnection::connectToBus(refusing.address(), "refusing");
        {
            ui::PortalShortcut shortcut(bus);
            QVERIFY(ui::PortalShortcut::available(bus));
            QSignalSpy failedSpy(&shortcut, &ui::PortalShortcut::failed);
            shortcut.bind("CTRL+ALT+d", "Start or stop dictation (Hearsay)");
            QVERIFY(failedSpy.wait(10000));
            QVERIFY2(failedSpy.at(0).at(0).toString().contains("answered no"), qPrintable(failedSpy.at(0).at(0).toString()));
            QVERIFY(!shortcut.isBound());
            QVERIFY(!shortcut.isPending());
        }
        QDBusConnection::disconnectFromBus("refusing");
    }

    // The portal with no GlobalShortcuts backend (as on desktops without one), and no portal.
    void noGlobalShortcutsInterface() {
        test::PortalBus bare;
        const QString failed = bare.startWithoutBackend(caseDir());
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        {
            QDBusConnection bus = QDBusConnection::connectToBus(bare.address(), "bare");
            QString why;
            QVERIFY(!ui::PortalShortcut::available(bus, &why));
            QVERIFY2(why.contains("the desktop portal offers no GlobalShortcuts interface"), qPrintable(why));
        }
        QDBusConnection::disconnectFromBus("bare");
    }
};

QTEST_MAIN(TestPortalShortcut)
#include "tst_portal_shortcut.moc"
