// Committed text pasted into other programs on a real X server (Xvfb, started by the test), the
// desktop application's clipboard path (ui/clipboard_paste.h through ui/dictate_anywhere.h): a
// Qt editor in a process of its own gets characters the us layout lacks (its own XKB keymap
// ignores the typer's spare keys, so these must be pasted) and a long text, exactly; xterm gets
// its paste through Shift+Insert (PRIMARY) and st through Ctrl+Shift+V; the user's clipboard
// (set by xclip, another client) is put back after a paste, and left alone when another client
// set it meanwhile; a copy made after the last event Qt saw does not win over the paste (Qt's
// stale selection time). With HEARSAY_MEASURE_TYPING=1 it also measures typing against pasting
// (README, "Dictate into other applications").
#include "ui/anywhere_settings.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictate_anywhere_panel.h"
#include "x_display.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <X11/Xlib.h>

#include <algorithm>

using namespace hearsay;
using namespace hearsay::test;

namespace {

QString setLayout(const QString& layout) {
    QProcess p;
    p.start("setxkbmap", {layout});
    if (!p.waitForFinished(30000) || p.exitCode() != 0) return "setxkbmap " + layout + " failed: " + p.readAllStandardError();
    return {};
}

QString readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// Another client takes the selection with `text` (xclip stays behind to serve it).
void setSelection(const QString& selection, const QString& text) {
    QProcess p;
    p.start("xclip", {"-selection", selection, "-i"});
    p.waitForStarted(10000);
    p.write(text.toUtf8());
    p.closeWriteChannel();
    p.waitForFinished(10000);  // xclip's parent exits once the selection is its own
}

// What another client reads from the selection; the event loop runs meanwhile, since this
// process may be the one that serves it.
QString readSelection(const QString& selection) {
    QProcess p;
    QSignalSpy done(&p, &QProcess::finished);
    p.start("xclip", {"-selection", selection, "-o"});
    if (!done.wait(10000)) return "<xclip did not finish>";
    return QString::fromUtf8(p.readAllStandardOutput());
}

// A program of another process with the keyboard focus, writing what it receives to a file.
class Target {
public:
    // "editor" (the Qt editor), "xterm" or "st" (each running `cat > FILE`).
    Target(const QString& kind, const QString& file) : m_file(file) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LANG", "C.UTF-8");
        m_process.setProcessEnvironment(env);
        if (kind == "editor") {
            m_process.start(EDITOR_PROCESS_PATH, {file});
            for (int i = 0; i < 200 && !m_process.readAllStandardOutput().contains("ready"); ++i) m_process.waitForReadyRead(100);
            m_ready = m_process.state() == QProcess::Running;
            return;
        }
        const QString windowFile = file + ".window";
        const QStringList command = {"-e", "sh", "-c", "echo $WINDOWID > \"$0\"; exec cat > \"$1\"", windowFile, file};
        m_process.start(kind, kind == "xterm" ? QStringList{"-u8"} + command : command);
        if (!m_process.waitForStarted(10000)) return;
        for (int i = 0; i < 200 && readAll(windowFile).trimmed().isEmpty(); ++i) QTest::qWait(100);
        const Window window = readAll(windowFile).trimmed().toULong();
        if (window == 0) return;
        // No window manager: the focus is given as a user's click would.
        Display* display = XOpenDisplay(nullptr);
        XSetInputFocus(display, window, RevertToParent, CurrentTime);
        XSync(display, False);
        XCloseDisplay(display);
        m_ready = true;
    }
    ~Target() {
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) m_process.kill();
        m_process.waitForFinished(5000);
    }
    bool ready() const { return m_ready; }
    QString text() const { return readAll(m_file); }

private:
    QProcess m_process;
    QString m_file;
    bool m_ready = false;
};

ui::AnywhereSettings settingsFor(InsertionMode mode) {
    ui::AnywhereSettings s;
    s.shortcut.clear();  // no global shortcut: the test commits text itself
    s.insertion = mode;
    return s;
}

} // namespace

class TestPasteX11 : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_case = 0;

    QString file() { return m_dir.filePath(QString("target-%1.txt").arg(++m_case)); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QCOMPARE(QGuiApplication::platformName(), QString("xcb"));
        QCOMPARE(setLayout("us"), QString());
    }

    // A copy made after the last event Hearsay saw, by a program gone since (no owner now, but a
    // later change time): Qt's own idea of the time would lose the selection to that; the paste
    // takes it with the server's time, and afterwards the clipboard is empty again, as it was.
    void pastesAfterARecentCopyOfAProgramGoneSince() {
        Target editor("editor", file());
        QVERIFY2(editor.ready(), "the editor did not start with the focus");
        // Hearsay held the clipboard before (Qt's time is then that of its last event)...
        QGuiApplication::clipboard()->setText("earlier");
        Display* display = XOpenDisplay(nullptr);
        const Atom clipboard = XInternAtom(display, "CLIPBOARD", False);
        const Window hearsay = XGetSelectionOwner(display, clipboard);
        QVERIFY(hearsay != None);
        // ...then a program copied (in the foreground, -quiet: it owns the clipboard until killed).
        QProcess xclip;
        xclip.start("xclip", {"-quiet", "-selection", "clipboard", "-i"});
        QVERIFY(xclip.waitForStarted(10000));
        xclip.write("copied, then closed");
        xclip.closeWriteChannel();
        xclip.waitForBytesWritten(10000);
        // No event loop from here to the paste: Qt does not hear of the change before it pastes.
        auto ownerIsHearsayOrNone = [&] {
            const Window owner = XGetSelectionOwner(display, clipboard);
            return owner == None || owner == hearsay;
        };
        for (int i = 0; i < 200 && ownerIsHearsayOrNone(); ++i) QThread::msleep(50);
        QVERIFY(!ownerIsHearsayOrNone());
        xclip.kill();
        xclip.waitForFinished(10000);
        for (int i = 0; i < 200 && XGetSelectionOwner(display, clipboard) != None; ++i) QThread::msleep(50);
        QVERIFY(XGetSelectionOwner(display, clipboard) == None);
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Paste));
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        anywhere.committed("dictated", false);
        QVERIFY(finished.wait(10000) || finished.count() == 1);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        QTRY_COMPARE_WITH_TIMEOUT(editor.text(), QString("dictated"), 10000);
        QCOMPARE(XGetSelectionOwner(display, clipboard), Window(None));  // empty again
        XCloseDisplay(display);
    }

    // → and ř are not on the us layout: typed, a Qt program would drop them; pasted, they arrive.
    void pastesCharactersTheLayoutLacksIntoAQtEditor() {
        Target editor("editor", file());
        QVERIFY2(editor.ready(), "the editor did not start with the focus");
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Automatic));
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        anywhere.committed(" Vltava → Praha, řeka", false);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toString(), QString("Ctrl+V"));
        QVERIFY(finished.wait(10000) || finished.count() == 1);
        QVERIFY2(finished.at(0).at(0).toBool(), "the editor did not fetch the text");
        QTRY_COMPARE_WITH_TIMEOUT(editor.text(), QString::fromUtf8("Vltava → Praha, řeka"), 10000);
        // A short text the layout has is typed, after the paste, in order.
        anywhere.committed(" and on", false);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(1).at(1).toString(), QString());
        QTRY_COMPARE_WITH_TIMEOUT(editor.text(), QString::fromUtf8("Vltava → Praha, řeka and on"), 10000);
    }

    // From kPasteFromCodePoints characters on, one paste instead of a key per character.
    void pastesLongText() {
        Target editor("editor", file());
        QVERIFY2(editor.ready(), "the editor did not start with the focus");
        QString text;
        for (int i = 0; text.size() < 2000; ++i) text += QString("word%1 ").arg(i);
        text = text.left(2000).trimmed();
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Automatic));
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        anywhere.committed(text.toStdString(), false);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toString(), QString("Ctrl+V"));
        QTRY_COMPARE_WITH_TIMEOUT(editor.text(), text, 10000);
    }

    // xterm pastes PRIMARY with Shift+Insert (Ctrl+Shift+V is ^V there); st pastes CLIPBOARD with
    // Ctrl+Shift+V. The selection each one used holds the user's content again afterwards.
    void pastesIntoTerminals_data() {
        QTest::addColumn<QString>("terminal");
        QTest::addColumn<QString>("chord");
        QTest::addColumn<QString>("selection");
        QTest::addRow("xterm") << "xterm" << "Shift+Insert" << "primary";
        QTest::addRow("st") << "st" << "Ctrl+Shift+V" << "clipboard";
    }

    void pastesIntoTerminals() {
        QFETCH(QString, terminal);
        QFETCH(QString, chord);
        QFETCH(QString, selection);
        setSelection(selection, "the user's selection");
        Target target(terminal, file());
        QVERIFY2(target.ready(), "the terminal did not start with the focus");
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Automatic));
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        const QString text = QString::fromUtf8("Vltava → řeka, 30 €\n");
        anywhere.committed(text.toStdString(), false);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toString(), chord);
        QVERIFY(finished.wait(10000) || finished.count() == 1);
        QCOMPARE(finished.at(0).at(0).toBool(), true);   // fetched by the terminal
        QCOMPARE(finished.at(0).at(1).toBool(), true);   // the user's content put back
        QTRY_COMPARE_WITH_TIMEOUT(target.text(), text, 10000);
        QCOMPARE(readSelection(selection), QString("the user's selection"));
    }

    // The user's clipboard (another client's) goes back once the target has fetched the paste.
    void userClipboardIsPutBack() {
        setSelection("clipboard", "the user's own words");
        Target editor("editor", file());
        QVERIFY2(editor.ready(), "the editor did not start with the focus");
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Paste));
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        anywhere.committed("dictated", false);  // chosen: pasted although short and typeable
        QVERIFY(finished.wait(10000) || finished.count() == 1);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        QTRY_COMPARE_WITH_TIMEOUT(editor.text(), QString("dictated"), 10000);
        QCOMPARE(readSelection("clipboard"), QString("the user's own words"));
    }

    // Another client sets the clipboard while the paste is under way: its content stays.
    void anotherClientsClipboardStays() {
        setSelection("clipboard", "older");
        Target editor("editor", file());
        QVERIFY2(editor.ready(), "the editor did not start with the focus");
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Paste));
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        connect(&anywhere.clipboardPaste(), &ui::ClipboardPaste::chordSent, this,
                [] { setSelection("clipboard", "copied meanwhile"); });
        anywhere.committed("dictated", false);
        QVERIFY(finished.wait(ui::ClipboardPaste::kFetchWaitMs + 10000) || finished.count() == 1);
        QCOMPARE(finished.at(0).at(1).toBool(), false);  // not put back
        QCOMPARE(readSelection("clipboard"), QString("copied meanwhile"));
    }

    // The mode is a setting: persisted by name, shown and chosen in the panel.
    void modeIsASetting() {
        QSettings settings(m_dir.filePath("settings.ini"), QSettings::IniFormat);
        QCOMPARE(ui::AnywhereSettings::load(settings).insertion, InsertionMode::Automatic);  // the default
        ui::AnywhereSettings s;
        s.insertion = InsertionMode::Paste;
        s.save(settings);
        QCOMPARE(settings.value("anywhere/insertion").toString(), QString("paste"));
        QCOMPARE(ui::AnywhereSettings::load(settings).insertion, InsertionMode::Paste);
        settings.setValue("anywhere/insertion", "sideways");
        QCOMPARE(ui::AnywhereSettings::load(settings).insertion, InsertionMode::Automatic);
        ui::DictateAnywherePanel panel;
        panel.setSettings(s);
        auto* combo = panel.findChild<QComboBox*>("anywhereInsertion");
        QVERIFY(combo);
        QCOMPARE(combo->currentIndex(), 2);
        QSignalSpy changed(&panel, &ui::DictateAnywherePanel::settingsChanged);
        combo->setCurrentIndex(1);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<ui::AnywhereSettings>().insertion, InsertionMode::Type);
    }

    // Typing against pasting, from the commit to the whole text in the target (median and 90th
    // percentile of HEARSAY_MEASURE_REPEATS, default 5), for the README and
    // scripts/bench/typing_latency.sh; only with HEARSAY_MEASURE_TYPING=1. Prints, asserts nothing
    // about the times.
    void measureTypingAgainstPasting() {
        if (qEnvironmentVariableIsEmpty("HEARSAY_MEASURE_TYPING")) QSKIP("a measurement: HEARSAY_MEASURE_TYPING=1");
        const int repeats = qEnvironmentVariableIntValue("HEARSAY_MEASURE_REPEATS") > 0
                                ? qEnvironmentVariableIntValue("HEARSAY_MEASURE_REPEATS")
                                : 5;
        for (const QString kind : {"editor", "xterm", "st"}) {
            Target target(kind, file());
            QVERIFY(target.ready());
            QTest::qWait(300);
            qint64 bytes = 0;
            for (int length : {20, 50, 100, 200, 500, 1000, 2000}) {
                QString text;
                for (int i = 0; text.size() < length; ++i) text += QString("w%1 ").arg(i);
                text = text.left(length - 1) + "\n";
                for (int method = 0; method < 2; ++method) {
                    std::vector<double> ms;
                    for (int repeat = 0; repeat < repeats; ++repeat) {
                        ui::DictateAnywhere anywhere;
                        anywhere.apply(settingsFor(method == 0 ? InsertionMode::Type : InsertionMode::Paste));
                        bytes += text.toUtf8().size();
                        QElapsedTimer clock;
                        clock.start();
                        anywhere.committed(text.toStdString(), false);
                        while (QFile(m_dir.filePath(QString("target-%1.txt").arg(m_case))).size() < bytes &&
                               clock.elapsed() < 30000) {
                            QCoreApplication::processEvents();
                            QThread::usleep(200);
                        }
                        ms.push_back(clock.nsecsElapsed() / 1e6);
                        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
                        if (anywhere.clipboardPaste().busy()) finished.wait(10000);
                    }
                    std::sort(ms.begin(), ms.end());
                    const auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * (ms.size() - 1) + 0.5))]; };
                    qInfo("typing-latency x11-xvfb %s %s %d chars: median %.1f ms, p90 %.1f ms (n=%zu)",
                          qPrintable(kind == "editor" ? QString("qt-editor") : kind), method == 0 ? "typed" : "pasted",
                          length, at(0.5), at(0.9), ms.size());
                }
            }
        }
    }
};

int main(int argc, char** argv) { return hearsay::test::runOnOwnXServer<TestPasteX11>(argc, argv, "tst_paste_x11"); }

#include "tst_paste_x11.moc"
