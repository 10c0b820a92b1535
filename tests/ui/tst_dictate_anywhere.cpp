// Dictating into another application through the global shortcut, on a real X server (Xvfb,
// started by the test) with a real microphone (a PulseAudio null sink, paplay plays jfk.wav into
// it) and the real tiny.en: the shortcut is grabbed (and refused, with the reason, when another
// program holds it); pressed and released with XTest it starts and stops dictation, push-to-talk
// and toggle; the committed text is typed into a focused Qt editor, each piece once, in order.
#include "core/pulse_server.h"
#include "core/real_models.h"
#include "core/transcript/word_error_rate.h"
#include "ui/dictate_anywhere.h"
#include "ui/level_meter_bar.h"
#include "ui/dictate_anywhere_panel.h"
#include "ui_test_support.h"
#include "x_display.h"

#include <QApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

using namespace hearsay;
using namespace hearsay::test;

namespace {

// Ctrl+Alt+D pressed (down = true) or released, as a user's fingers would, through XTest.
void chord(bool down) {
    Display* display = XOpenDisplay(nullptr);
    if (!display) qFatal("no display");
    const KeySym keys[] = {XK_Control_L, XK_Alt_L, XK_d};
    if (down) {
        for (KeySym k : keys) XTestFakeKeyEvent(display, XKeysymToKeycode(display, k), True, CurrentTime);
    } else {
        for (int i = 2; i >= 0; --i) XTestFakeKeyEvent(display, XKeysymToKeycode(display, keys[i]), False, CurrentTime);
    }
    XSync(display, False);
    XCloseDisplay(display);
}

} // namespace

class TestDictateAnywhere : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    PulseServer m_server;
    QString m_model;
    int m_case = 0;

    std::unique_ptr<ui::MainWindow> makeWindow(bool pushToTalk) {
        auto settings = std::make_unique<QSettings>(m_dir.filePath(QString("settings-%1.ini").arg(++m_case)),
                                                    QSettings::IniFormat);
        settings->setValue("engine/backend", "cpu");
        settings->setValue("decoding/beamSize", 1);
        settings->setValue("anywhere/shortcut", "Ctrl+Alt+D");
        settings->setValue("anywhere/mode", pushToTalk ? "push-to-talk" : "toggle");
        settings->setValue("anywhere/typeText", true);
        auto window = std::make_unique<ui::MainWindow>(std::move(settings));
        window->show();
        return window;
    }

private slots:
    void initTestCase() {
        QCOMPARE(QGuiApplication::platformName(), QString("xcb"));
        QVERIFY(m_dir.isValid());
        qputenv("XDG_STATE_HOME", m_dir.filePath("state").toUtf8());
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        if (const QString why = m_server.start(); !why.isEmpty()) QFAIL(qPrintable(why));
        m_model = QString::fromStdString((real_models::directory() / "tiny.en").string());
    }

    void shortcutIsGrabbedOnce() {
        ui::GlobalShortcut first, second;
        QVERIFY2(first.grab("Ctrl+Alt+J"), qPrintable(first.error()));
        QVERIFY2(first.mechanism().startsWith("X11 key grab on :"), qPrintable(first.mechanism()));
        // Another program (here another connection) cannot have it: said, not silently lost.
        QVERIFY(!second.grab("Ctrl+Alt+J"));
        QVERIFY2(second.error().contains("taken by another program"), qPrintable(second.error()));
        QVERIFY(!second.grab("Ctrl+Alt+Ü"));
        QVERIFY2(second.error().contains("cannot be a global shortcut"), qPrintable(second.error()));
        first.release();
        QVERIFY2(second.grab("Ctrl+Alt+J"), qPrintable(second.error()));  // free again
    }

    void pushToTalkTypesIntoTheFocusedApplication() {
        auto window = makeWindow(true);
        QVERIFY(loadModel(*window, m_model));
        QVERIFY2(window->dictateAnywhere()->shortcut().active(), qPrintable(window->dictateAnywhere()->shortcutStatus()));
        QVERIFY2(labelText(window->dictateAnywherePanel(), "anywhereStatus").contains("X11 key grab"),
                 qPrintable(labelText(window->dictateAnywherePanel(), "anywhereStatus")));
        auto editor = focusedEditor();
        QVERIFY2(editor, "the editor did not become active");
        QStringList committed;
        connect(window.get(), &ui::MainWindow::committedShown, this, [&](const QString& t) { committed << t.trimmed(); });
        QSignalSpy started(window.get(), &ui::MainWindow::dictationStarted);
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        chord(true);  // held: listening
        QTRY_VERIFY_WITH_TIMEOUT(window->isDictating(), 10000);
        QVERIFY(started.wait(30000) || started.count() == 1);
        QTRY_VERIFY_WITH_TIMEOUT(window->levelMeter()->level().windows > 0, 20000);  // the device delivers
        QVERIFY(m_server.play(jfk()));
        QTRY_VERIFY_WITH_TIMEOUT(!m_server.playing(), 60000);
        QTest::qWait(1500);  // the last words reach the engine
        chord(false);  // let go: the words already spoken are committed, then it ends
        QVERIFY(ended.wait(kJobTimeoutMs) || ended.count() == 1);
        QVERIFY2(ended.at(0).at(0).toBool(), qPrintable(QString::fromStdString(window->lastDictationSummary().error)));
        // Heard live through two resamplers, as in ui.dictation_microphone: the sentence, give or
        // take a word or two on a loaded machine.
        const QString expected = committed.join(' ').simplified();
        const WordErrors w = wordErrors("and so my fellow americans ask not what your country can do for you ask what you "
                                        "can do for your country",
                                        expected.toStdString());
        qInfo("committed \"%s\": %d word errors of %d, %llu samples dropped", qPrintable(expected), w.errors,
              w.referenceWords, static_cast<unsigned long long>(window->lastDictationSummary().droppedSamples));
        QVERIFY2(w.errors <= 3, qPrintable(expected));
        // Typed exactly as committed: each piece once, in order, one space between pieces.
        QTRY_COMPARE_WITH_TIMEOUT(editor->toPlainText(), expected, 10000);
    }

    void toggleStartsAndStops() {
        auto window = makeWindow(false);
        QVERIFY(loadModel(*window, m_model));
        auto editor = focusedEditor();
        QVERIFY(editor);
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        chord(true);
        chord(false);
        QTRY_VERIFY_WITH_TIMEOUT(window->isDictating(), 10000);  // a press and release: started, still on
        QTest::qWait(1000);
        QVERIFY(window->isDictating());
        chord(true);
        chord(false);
        QVERIFY(ended.wait(kJobTimeoutMs) || ended.count() == 1);
        QVERIFY(!window->isDictating());
    }
};

int main(int argc, char** argv) { return hearsay::test::runOnOwnXServer<TestDictateAnywhere>(argc, argv, "tst_dictate_anywhere"); }

#include "tst_dictate_anywhere.moc"
