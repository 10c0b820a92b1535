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
// The compositor and the editor are tests/core/headless_sway.h's. Skipped only when sway, wtype or
// wl-clipboard are not installed (scripts/setup.sh installs them).
#include "core/typing/insertion_method.h"
#include "core/typing/text_typer.h"
#include "core/typing/wayland_typer.h"
#include "tests/core/headless_sway.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace hearsay;

namespace {

constexpr int kTextWaitMs = 15000;  // for a text to reach the editor (it takes well under a second)

} // namespace

class TestTypingWayland : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_skip;
    test::HeadlessSway m_sway;

    // What the editor received after it held `before` (each case types after the ones before).
    QString addedSince(const QString& before) const { return m_sway.editorText().mid(before.size()); }
    QProcessEnvironment clientEnvironment() const { return m_sway.clientEnvironment(); }

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

    QString clipboard(const QStringList& args) { return m_sway.clipboard(args); }

private slots:
    void initTestCase() {
        m_skip = test::HeadlessSway::missingProgram();
        if (!m_skip.isEmpty()) return;
        QVERIFY(m_dir.isValid());
        const QString failed = m_sway.start(m_dir.path(), EDITOR_PROCESS_PATH);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
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
        QString before = m_sway.editorText();
        const QString said = runType({line});
        QVERIFY2(said.contains("Wayland (wtype) on " + m_sway.display()), qPrintable(said));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), line, kTextWaitMs);
        qInfo().noquote() << "typed:" << addedSince(before);

        const QString lines = QString::fromUtf8("\nZweite Zeile: -5 °C\n- Punkt eins\n--Ende\tmit Tab");
        before = m_sway.editorText();
        QVERIFY2(!runType({"--quiet", lines}).startsWith("<"), "hearsay-cli type failed");
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), lines, kTextWaitMs);
        qInfo().noquote() << "typed, lines:" << addedSince(before).split('\n').join(" | ");
    }

    void pastesALongTextAndPutsTheClipboardBack() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const QString copied = QString::fromUtf8("vorher kopiert: Ärger über 3 €");
        QVERIFY(m_sway.copy({copied}));  // returns once the compositor has the selection
        QCOMPARE(clipboard({"--no-newline"}), copied);

        const QString piece = QString::fromUtf8(" Ein langer Satz über Straßen in Köln, für 30 € — déjà vu, řeřicha.");
        QString text;
        while (text.size() < 2000) text += piece;
        text = "Eingefügt:" + text.left(2000 - 10);
        QCOMPARE(text.size(), 2000);
        const QString before = m_sway.editorText();
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
        QVERIFY(m_sway.copy({"--clear"}));
        QCOMPARE(clipboard({"--list-types"}), QString());
        const QString text = QString::fromUtf8("\nHundert Zeichen oder mehr werden eingefügt statt getippt: ").leftJustified(120, '.');
        const QString before = m_sway.editorText();
        const QString said = runType({"--method", "automatic", text});
        QVERIFY2(said.contains("pasted with Ctrl+V; the clipboard is as it was"), qPrintable(said));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), text, kTextWaitMs);
        QCOMPARE(clipboard({"--list-types"}), QString());
    }

    // The typer itself in this process: its name, the focused window by sway's app_id, what it
    // can type, and a clear error for a key symbol no key has.
    void typerAnswers() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        QVERIFY2(m_sway.editorRunning(), qPrintable("the editor has gone: " + m_sway.editorErrors()));
        m_sway.useInThisProcess();
        auto typer = openTextTyper();
        QVERIFY2(typer.ok(), typer.ok() ? "" : typer.message().c_str());
        QCOMPARE(typer.value()->describe(), "Wayland (wtype) on " + m_sway.display().toStdString());
        QVERIFY(isWaylandTyper(*typer.value()));
        QCOMPARE(pasteFromCodePoints(*typer.value()), kPasteFromCodePointsWtype);
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
        qputenv("WAYLAND_DISPLAY", m_sway.display().toLocal8Bit());

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
