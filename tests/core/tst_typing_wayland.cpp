// Typing and pasting on Wayland (core/typing/wayland_typer.h, wayland_paste.h) into a real
// compositor: a headless sway started by the test, with a Qt editor of its own process as a
// native Wayland client (QT_QPA_PLATFORM=wayland) that sway gives the keyboard focus. The real
// `hearsay-cli type` types German, French and Czech characters, the euro sign and a dash, then a
// text with newlines, a tab and leading dashes; the editor's text must equal them exactly. Then
// `--method paste` pastes 2,000 characters through wl-copy and Ctrl+V, and the clipboard text set
// before (by wl-copy, another client) is back afterwards; `--method automatic` pastes 120
// characters and leaves a clipboard that was empty empty again. The typer's own answers (its name, the
// focused window's app_id from sway, the chord and text arguments, wtype missing) are checked too.
//
// sway refuses to run as root: as root the test starts it as the user nobody (setpriv). Skipped
// only when sway, wtype or wl-clipboard are not installed (scripts/setup.sh installs them).
#include "core/typing/text_typer.h"
#include "core/typing/wayland_typer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <unistd.h>

using namespace hearsay;

namespace {

constexpr int kPolls = 300;  // 100 ms apart: a generous bound for the compositor and the editor
constexpr int kTextWaitMs = 15000;  // for a text to reach the editor (it takes well under a second)
constexpr uid_t kNobody = 65534;

QString readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The first entry of `dir` whose name matches `pattern` (a socket the compositor made).
QString findEntry(const QString& dir, const QString& pattern) {
    const QStringList names = QDir(dir).entryList({pattern}, QDir::System | QDir::Files | QDir::NoDotAndDotDot);
    for (const QString& name : names)
        if (!name.endsWith(".lock")) return name;
    return {};
}

} // namespace

class TestTypingWayland : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_runtime, m_display, m_swaySocket, m_editorFile, m_skip;
    QProcess m_sway, m_editor;

    // What the editor received after it held `before` (each case types after the ones before).
    QString addedSince(const QString& before) const { return readAll(m_editorFile).mid(before.size()); }

    QProcessEnvironment clientEnvironment() const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "HEARSAY_TYPER", "WAYLAND_SOCKET"}) env.remove(name);
        env.insert("XDG_RUNTIME_DIR", m_runtime);
        env.insert("WAYLAND_DISPLAY", m_display);
        env.insert("SWAYSOCK", m_swaySocket);
        env.insert("LANG", "C.UTF-8");
        return env;
    }

    // Runs `hearsay-cli type ARGS` against the compositor; its standard error.
    QString runType(const QStringList& args) {
        QProcess cli;
        cli.setProcessEnvironment(clientEnvironment());
        cli.start(HEARSAY_CLI_PATH, QStringList{"type"} + args);
        if (!cli.waitForFinished(120000)) return "<hearsay-cli did not finish>";
        const QString errors = QString::fromUtf8(cli.readAllStandardError());
        if (cli.exitCode() != 0) return "<exit " + QString::number(cli.exitCode()) + "> " + errors;
        return errors;
    }

    QString clipboard(const QStringList& args) {
        QProcess p;
        p.setProcessEnvironment(clientEnvironment());
        p.start("wl-paste", args);
        if (!p.waitForFinished(20000)) return "<wl-paste did not finish>";
        return QString::fromUtf8(p.readAllStandardOutput());
    }

private slots:
    void initTestCase() {
        for (const char* program : {"sway", "swaymsg", "wtype", "wl-copy", "wl-paste"}) {
            if (QStandardPaths::findExecutable(program).isEmpty()) {
                m_skip = QString(program) + " is not installed (Debian packages sway, wtype, wl-clipboard; "
                                            "scripts/setup.sh)";
                return;
            }
        }
        QVERIFY(m_dir.isValid());
        const bool root = geteuid() == 0;
        // sway runs as nobody when this is root: the directory must let it in.
        QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup |
                                                QFile::ExeOther);
        m_runtime = m_dir.filePath("runtime");
        QVERIFY(QDir().mkpath(m_runtime));
        QFile::setPermissions(m_runtime, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        if (root) QCOMPARE(chown(m_runtime.toLocal8Bit().constData(), kNobody, kNobody), 0);
        const QString config = m_dir.filePath("sway.config");
        {
            QFile file(config);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("xwayland disable\n");
        }
        QFile::setPermissions(config, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "WAYLAND_SOCKET"}) env.remove(name);
        env.insert("XDG_RUNTIME_DIR", m_runtime);
        env.insert("WLR_BACKENDS", "headless");
        env.insert("WLR_LIBINPUT_NO_DEVICES", "1");
        env.insert("WLR_RENDERER", "pixman");
        m_sway.setProcessEnvironment(env);
        m_sway.setProcessChannelMode(QProcess::MergedChannels);
        if (root)
            m_sway.start("setpriv", {"--reuid=" + QString::number(kNobody), "--regid=" + QString::number(kNobody),
                                     "--clear-groups", "sway", "-c", config});
        else
            m_sway.start("sway", {"-c", config});
        QVERIFY2(m_sway.waitForStarted(20000), qPrintable(m_sway.errorString()));
        for (int i = 0; i < kPolls && (m_display.isEmpty() || m_swaySocket.isEmpty()); ++i) {
            QThread::msleep(100);
            m_display = findEntry(m_runtime, "wayland-*");
            const QString ipc = findEntry(m_runtime, "sway-ipc.*.sock");
            if (!ipc.isEmpty()) m_swaySocket = m_runtime + "/" + ipc;
            QVERIFY2(m_sway.state() == QProcess::Running, m_sway.readAll().constData());
        }
        QVERIFY2(!m_display.isEmpty() && !m_swaySocket.isEmpty(), "sway made no sockets");

        m_editorFile = m_dir.filePath("editor.txt");
        QProcessEnvironment editorEnv = clientEnvironment();
        editorEnv.insert("QT_QPA_PLATFORM", "wayland");
        m_editor.setProcessEnvironment(editorEnv);
        m_editor.start(EDITOR_PROCESS_PATH, {m_editorFile});
        QByteArray said;
        for (int i = 0; i < kPolls && !said.contains("ready") && m_editor.state() != QProcess::NotRunning; ++i) {
            m_editor.waitForReadyRead(100);
            said += m_editor.readAllStandardOutput();
        }
        QVERIFY2(said.contains("ready"),
                 qPrintable("the Qt editor got no focus under sway (qt6-wayland installed?): " +
                            QString::fromUtf8(m_editor.readAllStandardError())));
        // Qt may call its window active before sway gives it the keyboard: keys sent before that
        // would go nowhere. sway's tree says when the editor has the focus.
        QString focused;
        for (int i = 0; i < kPolls && focused != "editor_process"; ++i) {
            QProcess tree;
            tree.setProcessEnvironment(clientEnvironment());
            tree.start("swaymsg", {"-t", "get_tree", "-r"});
            tree.waitForFinished(20000);
            focused = QString::fromStdString(swayFocusedWindow(tree.readAllStandardOutput().toStdString()).instance);
            if (focused != "editor_process") QThread::msleep(100);
        }
        QCOMPARE(focused, QString("editor_process"));
    }

    void cleanupTestCase() {
        for (QProcess* p : {&m_editor, &m_sway}) {
            if (p->state() == QProcess::NotRunning) continue;
            p->terminate();
            if (!p->waitForFinished(10000)) {
                p->kill();
                p->waitForFinished(10000);
            }
        }
    }

    // The arguments wtype gets: newline and tab as keys, leading dashes as keys (not options),
    // a chord's modifiers pressed first and released last.
    void wtypeArguments() {
        auto text = wtypeTextArguments("a\n-b\t--c d");
        QVERIFY(text.ok());
        QCOMPARE(text.value(), (std::vector<std::string>{"a", "-k", "Return", "-k", "minus", "b", "-k", "Tab", "-k",
                                                          "minus", "-k", "minus", "c d"}));
        auto control = wtypeTextArguments("bell\a");
        QVERIFY(!control.ok());
        QVERIFY2(control.message().find("U+0007") != std::string::npos, control.message().c_str());
        auto notUtf8 = wtypeTextArguments("ab\xC3");
        QVERIFY(!notUtf8.ok());
        QVERIFY2(notUtf8.message().find("byte 2") != std::string::npos, notUtf8.message().c_str());
        auto chord = wtypeChordArguments({"Control_L", "Shift_L", "v"});
        QVERIFY(chord.ok());
        QCOMPARE(chord.value(),
                 (std::vector<std::string>{"-M", "ctrl", "-M", "shift", "-P", "v", "-p", "v", "-m", "shift", "-m", "ctrl"}));
        auto bad = wtypeChordArguments({"Control_L", "NoSuchKeyAnywhere"});
        QVERIFY(!bad.ok());
        QVERIFY2(bad.message().find("NoSuchKeyAnywhere") != std::string::npos, bad.message().c_str());
        const std::string tree =
            R"({"id":1,"focused":false,"nodes":[{"id":4,"focused":false,"nodes":[{"id":7,"focused":true,)"
            R"("app_id":null,"window_properties":{"class":"XTerm","instance":"xterm"},"nodes":[]}]}]})";
        const FocusedWindow x11 = swayFocusedWindow(tree);
        QCOMPARE(x11.id, uint64_t(7));
        QCOMPARE(x11.instance, std::string("xterm"));
        QCOMPARE(x11.windowClass, std::string("XTerm"));
        QCOMPARE(swayFocusedWindow("not json").id, uint64_t(0));
    }

    void typesIntoAWaylandEditor() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const QString line = QString::fromUtf8("Grüße aus Köln — 30 € (Straße), déjà vu, řeřicha");
        QString before = readAll(m_editorFile);
        const QString said = runType({line});
        QVERIFY2(said.contains("Wayland (wtype) on " + m_display), qPrintable(said));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), line, kTextWaitMs);
        qInfo().noquote() << "typed:" << addedSince(before);

        const QString lines = QString::fromUtf8("\nZweite Zeile: -5 °C\n- Punkt eins\n--Ende\tmit Tab");
        before = readAll(m_editorFile);
        QVERIFY2(!runType({"--quiet", lines}).startsWith("<"), "hearsay-cli type failed");
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), lines, kTextWaitMs);
        qInfo().noquote() << "typed, lines:" << addedSince(before).split('\n').join(" | ");
    }

    void pastesALongTextAndPutsTheClipboardBack() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const QString copied = QString::fromUtf8("vorher kopiert: Ärger über 3 €");
        QProcess copy;
        copy.setProcessEnvironment(clientEnvironment());
        copy.start("wl-copy", {copied});
        QVERIFY(copy.waitForFinished(20000));  // returns once the compositor has the selection
        QCOMPARE(clipboard({"--no-newline"}), copied);

        const QString piece = QString::fromUtf8(" Ein langer Satz über Straßen in Köln, für 30 € — déjà vu, řeřicha.");
        QString text;
        while (text.size() < 2000) text += piece;
        text = "Eingefügt:" + text.left(2000 - 10);
        QCOMPARE(text.size(), 2000);
        const QString before = readAll(m_editorFile);
        const QString said = runType({"--method", "paste", text});
        QVERIFY2(said.contains("pasted with Ctrl+V; the clipboard is as it was"), qPrintable(said));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), text, kTextWaitMs);
        qInfo().noquote() << "pasted:" << addedSince(before).left(60) << "... (" << addedSince(before).size()
                          << "characters)";
        QCOMPARE(clipboard({"--no-newline"}), copied);
        qInfo().noquote() << "clipboard afterwards:" << clipboard({"--no-newline"});
    }

    // Automatic pastes a text of 100 characters or more; a clipboard that was empty is empty again.
    void automaticPastesLongTextAndLeavesAnEmptyClipboardEmpty() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        QProcess clear;
        clear.setProcessEnvironment(clientEnvironment());
        clear.start("wl-copy", {"--clear"});
        QVERIFY(clear.waitForFinished(20000));
        QCOMPARE(clipboard({"--list-types"}), QString());
        const QString text = QString::fromUtf8("\nHundert Zeichen oder mehr werden eingefügt statt getippt: ").leftJustified(120, '.');
        const QString before = readAll(m_editorFile);
        const QString said = runType({"--method", "automatic", text});
        QVERIFY2(said.contains("pasted with Ctrl+V; the clipboard is as it was"), qPrintable(said));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), text, kTextWaitMs);
        QCOMPARE(clipboard({"--list-types"}), QString());
    }

    // The typer itself in this process: its name, the focused window by sway's app_id, what it
    // can type, and a clear error for a key symbol no key has.
    void typerAnswers() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        QVERIFY2(m_editor.state() == QProcess::Running,
                 qPrintable("the editor has gone: " + QString::fromUtf8(m_editor.readAllStandardError())));
        qunsetenv("DISPLAY");
        qunsetenv("HEARSAY_TYPER");
        qputenv("XDG_RUNTIME_DIR", m_runtime.toLocal8Bit());
        qputenv("WAYLAND_DISPLAY", m_display.toLocal8Bit());
        qputenv("SWAYSOCK", m_swaySocket.toLocal8Bit());
        auto typer = openTextTyper();
        QVERIFY2(typer.ok(), typer.ok() ? "" : typer.message().c_str());
        QCOMPARE(typer.value()->describe(), "Wayland (wtype) on " + m_display.toStdString());
        QVERIFY(isWaylandTyper(*typer.value()));
        const FocusedWindow focused = typer.value()->focusedWindow();
        QVERIFY2(focused.instance == "editor_process", ("focused: " + focused.instance + " / " + focused.windowClass).c_str());
        QVERIFY(focused.id != 0);
        QCOMPARE(typer.value()->missingCharacter("řeřicha → 😀\n\t"), std::nullopt);
        QCOMPARE(typer.value()->missingCharacter("ab\xC3"), std::optional<uint32_t>(0xFFFD));
        auto chord = typer.value()->pressChord({"Control_L", "NoSuchKeyAnywhere"});
        QVERIFY(!chord.ok());
        QVERIFY2(chord.message().find("NoSuchKeyAnywhere") != std::string::npos, chord.message().c_str());

        // wtype's own words when it cannot reach a compositor.
        qputenv("WAYLAND_DISPLAY", "wayland-nothere");
        auto unreachable = openTextTyper();
        QVERIFY(!unreachable.ok());
        QVERIFY2(unreachable.message().find("wtype:") != std::string::npos, unreachable.message().c_str());
        qputenv("WAYLAND_DISPLAY", m_display.toLocal8Bit());

        qputenv("HEARSAY_TYPER", "carrier-pigeon");
        auto unknown = openTextTyper();
        QVERIFY(!unknown.ok());
        QVERIFY2(unknown.message().find("HEARSAY_TYPER") != std::string::npos, unknown.message().c_str());
        qunsetenv("HEARSAY_TYPER");
    }

    // Without wtype on the PATH, the error names the package.
    void missingWtypeIsNamed() {
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", m_dir.path().toLocal8Bit());  // holds no programs
        qputenv("HEARSAY_TYPER", "wayland");
        auto typer = openTextTyper();
        qputenv("PATH", path);
        qunsetenv("HEARSAY_TYPER");
        QVERIFY(!typer.ok());
        QVERIFY2(typer.message().find("Debian package wtype") != std::string::npos, typer.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTypingWayland)
#include "tst_typing_wayland.moc"
