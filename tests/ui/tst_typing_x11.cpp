// Dictated text typed into other programs on a real X server (Xvfb, started by the test): a Qt
// text editor window of the test's own and an xterm running `cat > FILE` have the focus in turn.
// `hearsay-cli type` types each layout's characters exactly with the us, de, fr and cz layouts into
// both, and accented, Czech and typographic characters a layout lacks into the terminal (through a
// spare key: Qt programs do not follow that remapping); `hearsay-cli stream
// --type` types what it commits from jfk.wav with the real tiny.en, each piece once, in order,
// spaced; without a display it says why and types nothing. `type --newline` types a newline as
// Return (a chat box sends the message), Shift+Enter (a line break there, nothing sent) or a space.
#include "core/real_models.h"
#include "ui_test_support.h"
#include "x_display.h"

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QPlainTextEdit>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <X11/Xlib.h>

using namespace hearsay;
using namespace hearsay::test;

namespace {

const QString kSample = QString::fromUtf8("Grüße aus Köln — 30 € (Straße), déjà vu, řeřicha");

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run runCli(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.start(HEARSAY_CLI_PATH, args);
    Run r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "did not finish";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString setLayout(const QString& layout) {
    QProcess p;
    p.start("setxkbmap", {layout});
    if (!p.waitForFinished(30000) || p.exitCode() != 0) return "setxkbmap " + layout + " failed: " + p.readAllStandardError();
    return {};
}

// A chat application's message box: Return without Shift sends (counted, the box emptied), every
// other key is the editor's (Shift+Return a line break).
class ChatBox : public QPlainTextEdit {
public:
    int sends = 0;
    int shiftReturns = 0;

protected:
    void keyPressEvent(QKeyEvent* event) override {
        const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
        if (enter && (event->modifiers() & Qt::ShiftModifier)) ++shiftReturns;
        if (!enter || (event->modifiers() & Qt::ShiftModifier)) {
            QPlainTextEdit::keyPressEvent(event);
            return;
        }
        ++sends;
        clear();
    }
};

} // namespace

class TestTypingX11 : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QCOMPARE(QGuiApplication::platformName(), QString("xcb"));
    }

    void cleanup() { QCOMPARE(setLayout("us"), QString()); }

    // A Qt program reads keys through its own XKB keymap: each layout's own characters, on every
    // level (Shift, AltGr), come out exactly.
    void typesIntoAQtEditor_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("text");
        QTest::addRow("us") << "us" << "Hello, World: 30% (x) {y} [z] @#$^&*_+=|\\~`'\"<>?/";
        QTest::addRow("de") << "de" << QString::fromUtf8("Grüße aus Köln, 30 € (Straße) @{[]}\\~|µ");
        QTest::addRow("fr") << "fr" << QString::fromUtf8("Déjà vu, où était l'été ? 30 € ç @#{[|]}");
        QTest::addRow("cz") << "cz" << QString::fromUtf8("řeřicha, žluté kůly, čeština: 30 € ěšíáéů");
    }

    void typesIntoAQtEditor() {
        QFETCH(QString, layout);
        QFETCH(QString, text);
        QCOMPARE(setLayout(layout), QString());
        auto editor = focusedEditor();
        QVERIFY2(editor, "the editor window did not become active");
        const Run r = runCli({"type", "--quiet", text});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QTRY_COMPARE_WITH_TIMEOUT(editor->toPlainText(), text, 10000);
    }

    // A terminal: xterm running `cat > FILE`; a line reaches the file when Return is typed. xterm
    // follows the core keyboard mapping, so the characters each layout lacks (— € ř on us, é à ř
    // on de, ...) come through the spare keys too.
    void typesIntoATerminal_data() {
        QTest::addColumn<QString>("layout");
        for (const char* layout : {"us", "de", "fr", "cz"}) QTest::addRow("%s", layout) << QString(layout);
    }

    void typesIntoATerminal() {
        QFETCH(QString, layout);
        QCOMPARE(setLayout(layout), QString());
        const QString file = m_dir.filePath("terminal-" + layout + ".txt"), windowFile = m_dir.filePath("window-" + layout);
        QProcess xterm;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LANG", "C.UTF-8");
        xterm.setProcessEnvironment(env);
        xterm.start("xterm", {"-u8", "-e", "sh", "-c", "echo $WINDOWID > \"$0\"; exec cat > \"$1\"", windowFile, file});
        QVERIFY2(xterm.waitForStarted(10000), qPrintable(xterm.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(QFile(windowFile).size() > 0, 20000);
        QFile ids(windowFile);
        QVERIFY(ids.open(QIODevice::ReadOnly));
        const Window window = ids.readAll().trimmed().toULong();
        QVERIFY(window != 0);
        // No window manager: the focus is given to the terminal as a user's click would.
        Display* display = XOpenDisplay(nullptr);
        QVERIFY(display);
        XSetInputFocus(display, window, RevertToParent, CurrentTime);
        XSync(display, False);
        XCloseDisplay(display);
        const Run r = runCli({"type", "--quiet", kSample + "\n"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QTRY_COMPARE_WITH_TIMEOUT(QFile(file).size(), qint64((kSample + "\n").toUtf8().size()), 10000);
        QFile typed(file);
        QVERIFY(typed.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(typed.readAll()), kSample + "\n");
        xterm.terminate();
        xterm.waitForFinished(5000);
    }

    // Live dictation typed as it is committed: every committed piece once, in order, one space
    // between pieces and none before the first.
    void streamTypesWhatItCommits() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        auto editor = focusedEditor();
        QVERIFY2(editor, "the editor window did not become active");
        const QString model = QString::fromStdString((real_models::directory() / "tiny.en").string());
        const Run r = runCli({"stream", "--model", model, "--speed", "4", "--no-journal", "--quiet", "--output-format",
                              "json", "--type", jfk()},
                             kJobTimeoutMs);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString expected;
        for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            const QJsonObject event = QJsonDocument::fromJson(line.toUtf8()).object();
            if (event["event"].toString() != "committed") continue;
            const QString piece = event["text"].toString().trimmed();
            if (piece.isEmpty()) continue;
            expected += (expected.isEmpty() ? "" : " ") + piece;
        }
        QVERIFY2(words(expected).join(' ').contains("ask not what your country can do for you"), qPrintable(expected));
        QTRY_COMPARE_WITH_TIMEOUT(editor->toPlainText(), expected, 10000);
    }

    void newlineIntoAChatBox_data() {
        QTest::addColumn<QString>("newline");
        QTest::addColumn<QString>("box");
        QTest::addColumn<int>("sends");
        QTest::addColumn<int>("shiftReturns");
        QTest::addRow("return") << "return" << "second line" << 1 << 0;
        QTest::addRow("shift-enter") << "shift-enter" << "first line\nsecond line" << 0 << 1;
        QTest::addRow("space") << "space" << "first line second line" << 0 << 0;
    }

    void newlineIntoAChatBox() {
        QFETCH(QString, newline);
        QFETCH(QString, box);
        QFETCH(int, sends);
        QFETCH(int, shiftReturns);
        ChatBox chat;
        chat.resize(400, 200);
        chat.show();
        chat.activateWindow();
        chat.setFocus();
        QVERIFY(QTest::qWaitForWindowActive(&chat, 10000));
        const Run r = runCli({"type", "--quiet", "--newline", newline, "first line\nsecond line"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QTRY_COMPARE_WITH_TIMEOUT(chat.toPlainText(), box, 10000);
        QCOMPARE(chat.sends, sends);
        QCOMPARE(chat.shiftReturns, shiftReturns);
        const Run bad = runCli({"type", "--quiet", "--newline", "enter", "x"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--newline: enter not in {return,shift-enter,space}"), qPrintable(bad.err));
    }

    // Text that is not UTF-8 (a damaged file): a clear error naming the byte, nothing typed.
    void badTextIsAClearError() {
        auto editor = focusedEditor();
        QVERIFY2(editor, "the editor window did not become active");
        const QString file = m_dir.filePath("damaged.txt");
        QFile damaged(file);
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write("abc\xC3(def\xFF");
        damaged.close();
        const Run r = runCli({"type", "--quiet", "--file", file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not UTF-8 at byte 3"), qPrintable(r.err));
        QTest::qWait(500);
        QCOMPARE(editor->toPlainText(), QString());
        const Run missing = runCli({"type", "--quiet", "--file", m_dir.filePath("missing.txt")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains("cannot read"), qPrintable(missing.err));
    }

    void noDisplayIsAClearError() {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        p.setProcessEnvironment(env);
        p.start(HEARSAY_CLI_PATH, {"type", "hello"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(p.readAllStandardError().contains("no display ($DISPLAY is not set)"), "no reason given");
    }
};

int main(int argc, char** argv) {
    // The X server first: the application connects to it as it starts.
    XDisplay display;
    if (display.name().isEmpty()) {
        std::fprintf(stderr, "tst_typing_x11: %s\n", qPrintable(display.error()));
        return 1;
    }
    qputenv("DISPLAY", display.name().toLocal8Bit());
    qputenv("QT_QPA_PLATFORM", "xcb");
    QApplication app(argc, argv);
    TestTypingX11 test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_typing_x11.moc"
