// Typing through the RemoteDesktop portal (core/typing/portal_typer.h), the way into other
// applications on GNOME and KDE Wayland sessions: the real xdg-desktop-portal on a private bus with
// a backend of the test's own in the desktop's place (tests/core/portal_bus.h). The real
// `hearsay-cli type`, in a session that calls itself GNOME (or KDE) on Wayland, chooses the portal,
// asks for a keyboard only, and the key symbols that reach the desktop spell the text exactly
// (German, French and Czech letters, the euro sign, a newline, a tab), each pressed and released;
// the desktop's restore token is kept, and the session is closed at the end. Failure paths: the
// user refuses, the desktop lends no keyboard, a portal without RemoteDesktop (as on wlroots
// desktops), no session bus: one clear line each, exit status 1, nothing typed.
#include "core/typing/portal_typer.h"
#include "tests/core/portal_bus.h"
#include "tests/core/portal_keys.h"

#include <QProcess>
#include <memory>
#include <QTemporaryDir>
#include <QTest>

using namespace hearsay;
using test::keysOf;

class TestTypingPortal : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_case = 0;

    // `hearsay-cli type ARGS` in `env`: its exit status and standard error.
    static std::pair<int, QString> runType(const QProcessEnvironment& env, const QStringList& args) {
        QProcess cli;
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, QStringList{"type"} + args);
        if (!cli.waitForFinished(120000)) return {-1, "<hearsay-cli did not finish>"};
        return {cli.exitCode(), QString::fromUtf8(cli.readAllStandardError())};
    }

    QString caseDir() {
        const QString dir = m_dir.filePath(QString("case-%1").arg(++m_case));
        QDir().mkpath(dir);
        return dir;
    }

private slots:
    void initTestCase() {
        if (const QString why = test::PortalBus::missing(); !why.isEmpty()) QSKIP(qPrintable(why));
        QVERIFY(m_dir.isValid());
    }

    void typesThroughThePortalOnGnomeAndKde() {
        const QString text = QString::fromUtf8("Grüße aus Köln: 30 € (Straße), déjà vu, řeřicha\n\tEnde.");
        for (const QString desktop : {"GNOME", "KDE"}) {
            const QString dir = caseDir();
            test::PortalBus portal;
            const QString failed = portal.start(dir, PORTAL_DESKTOP_PATH);
            QVERIFY2(failed.isEmpty(), qPrintable(failed));
            QProcessEnvironment env = portal.clientEnvironment(desktop);
            env.insert("XDG_STATE_HOME", dir + "/state");
            const auto [status, said] = runType(env, {text});
            QVERIFY2(status == 0, qPrintable(said));
            QVERIFY2(said.contains("RemoteDesktop portal, keyboard"), qPrintable(said));
            QVERIFY(portal.waitForLine("session-close", 10000));  // the typer closed its session on exit
            const QStringList lines = portal.said();
            // Asked for a keyboard only (1). This xdg-desktop-portal (RemoteDesktop version 1)
            // cannot keep the permission, so none is asked for.
            QVERIFY2(lines.contains("rd-select 1 0 -"), qPrintable(lines.join(" | ")));
            QVERIFY2(lines.contains("rd-start"), qPrintable(lines.join(" | ")));
            const test::TypedKeys typed = keysOf(lines);
            QCOMPARE(typed.text, text);
            QVERIFY2(typed.problems.isEmpty(), qPrintable(typed.problems));
            QFile token(dir + "/state/hearsay/remote-desktop-token");
            QVERIFY(token.open(QIODevice::ReadOnly));
            QCOMPARE(token.readAll().trimmed(), QByteArray("token-1"));  // the desktop's, kept for the next start
            qInfo().noquote() << desktop << ":" << typed.text.size() << "characters typed through the portal";
        }
    }

    // A chord (Ctrl+Shift+V) goes down in order and up in reverse.
    void chordThroughThePortal() {
        test::PortalBus portal;
        const QString failed = portal.start(caseDir(), PORTAL_DESKTOP_PATH);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        const QProcessEnvironment env = portal.clientEnvironment("GNOME");
        qputenv("DBUS_SESSION_BUS_ADDRESS", env.value("DBUS_SESSION_BUS_ADDRESS").toUtf8());
        qputenv("XDG_STATE_HOME", (m_dir.path() + "/chord-state").toUtf8());
        {
            auto typer = openPortalTyper();
            QVERIFY2(typer.ok(), typer.ok() ? "" : typer.message().c_str());
            QVERIFY(isPortalTyper(*typer.value()));
            QCOMPARE(typer.value()->missingCharacter("řeřicha → 😀\n\t"), std::nullopt);
            QCOMPARE(typer.value()->missingCharacter("bell\a"), std::optional<uint32_t>(7));
            QVERIFY(typer.value()->pressChord({"Control_L", "Shift_L", "v"}).ok());
            auto bad = typer.value()->pressChord({"Control_L", "NoSuchKeyAnywhere"});
            QVERIFY(!bad.ok());
            QVERIFY2(bad.message().find("NoSuchKeyAnywhere") != std::string::npos, bad.message().c_str());
            auto control = typer.value()->type("ab\a");
            QVERIFY(!control.ok());
            QVERIFY2(control.message().find("U+0007") != std::string::npos, control.message().c_str());
        }
        QVERIFY(portal.waitForLine("session-close", 10000));
        QStringList keys;
        for (const QString& line : portal.said())
            if (line.startsWith("keysym ")) keys << line.mid(7);
        // Control_L 0xffe3, Shift_L 0xffe1, v 0x76; nothing of the refused chord or text.
        QCOMPARE(keys, (QStringList{"65507 1", "65505 1", "118 1", "118 0", "65505 0", "65507 0"}));
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    }

    void userRefuses() {
        test::PortalBus portal;
        const QString failed = portal.start(caseDir(), PORTAL_DESKTOP_PATH, {"--refuse-start"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        const auto [status, said] = runType(portal.clientEnvironment("GNOME"), {"not typed"});
        QCOMPARE(status, 1);
        QVERIFY2(said.contains("the user did not allow Hearsay to type"), qPrintable(said));
        QVERIFY(keysOf(portal.said()).text.isEmpty());
    }

    void desktopLendsNoKeyboard() {
        test::PortalBus portal;
        const QString failed = portal.start(caseDir(), PORTAL_DESKTOP_PATH, {"--no-keyboard"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        const auto [status, said] = runType(portal.clientEnvironment("KDE"), {"not typed"});
        QCOMPARE(status, 1);
        QVERIFY2(said.contains("without a keyboard"), qPrintable(said));
        QVERIFY(keysOf(portal.said()).text.isEmpty());
    }

    // A bus whose portal has no RemoteDesktop backend (as xdg-desktop-portal-wlr on sway), and no
    // session bus at all.
    void noPortalToTypeThrough() {
        auto bare = std::make_unique<test::PortalBus>();
        const QString failed = bare->startWithoutBackend(caseDir());
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("DBUS_SESSION_BUS_ADDRESS", bare->address());
        env.insert("HEARSAY_TYPER", "portal");
        auto [status, said] = runType(env, {"not typed"});
        QCOMPARE(status, 1);
        QVERIFY2(said.contains("the portal offers no RemoteDesktop interface"), qPrintable(said));
        bare.reset();

        env.insert("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + m_dir.filePath("no-bus-here"));
        std::tie(status, said) = runType(env, {"not typed"});
        QCOMPARE(status, 1);
        QVERIFY2(said.contains("no session bus"), qPrintable(said));
    }
};

QTEST_GUILESS_MAIN(TestTypingPortal)
#include "tst_typing_portal.moc"
