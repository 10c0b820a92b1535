// The desktop application's paste path on Wayland (ui/clipboard_paste.h, ui/wayland_paste_job.h)
// into a real compositor: a headless sway with a Qt editor of another process as a native Wayland
// client (tests/core/headless_sway.h), and DictateAnywhere in this process with the wtype typer,
// as the window runs it when Hearsay is started on a wlroots desktop.
// - A pasted text arrives whole, the chord is reported, the user's clipboard text (set by wl-copy,
//   another client) is back afterwards, and the event loop runs while the paste waits for the
//   restore (the window is not frozen for that second).
// - A piece committed during the paste is typed after it, in order, one space between.
// - Without wl-clipboard: automatic mode types the text instead; paste mode fails the run with a
//   message naming the package, and nothing more is typed in it.
// With HEARSAY_MEASURE_TYPING=1, measureCommitToTarget times a committed piece until it is whole in
// the editor, typed and pasted (scripts/bench/typing_latency.sh).
#include "tests/core/headless_sway.h"
#include "ui/anywhere_settings.h"
#include "ui/dictate_anywhere.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <vector>

using namespace hearsay;

namespace {

constexpr int kTextWaitMs = 15000;  // for a text to reach the editor (it takes well under a second)

ui::AnywhereSettings settingsFor(InsertionMode mode) {
    ui::AnywhereSettings s;
    s.shortcut.clear();  // no global shortcut: the test commits text itself
    s.insertion = mode;
    return s;
}

// A text of `length` characters ending in a full stop, in words: dictated text.
QString sentence(int length) {
    QString text;
    for (int i = 0; text.size() < length; ++i) text += QString("word%1 ").arg(i);
    return text.left(length - 1) + ".";
}

} // namespace

class TestPasteWayland : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_skip;
    test::HeadlessSway m_sway;

    QString addedSince(const QString& before) const { return m_sway.editorText().mid(before.size()); }

private slots:
    void initTestCase() {
        m_skip = test::HeadlessSway::missingProgram();
        if (!m_skip.isEmpty()) return;
        QVERIFY(m_dir.isValid());
        const QString failed = m_sway.start(m_dir.path(), EDITOR_PROCESS_PATH);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        m_sway.useInThisProcess();  // this process's typer is wtype's on that sway
        // The editor has had typed keys before the first paste, as a user's editor has: with a paste
        // as the very first keys it received, this Qt editor (Qt 6.4's Wayland plugin) was seen to
        // crash now and then after "unexpected wl_keyboard.leave" warnings.
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Type));
        anywhere.committed("Typed first.\n", false);
        QTRY_COMPARE_WITH_TIMEOUT(m_sway.editorText(), QString("Typed first.\n"), kTextWaitMs);
    }

    void init() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        QVERIFY2(m_sway.editorRunning(),
                 qPrintable("the editor has gone: " + m_sway.editorErrors() + "; " + m_sway.compositorState()));
    }

    void pastesWithoutFreezingAndPutsTheClipboardBack() {
        const QString copied = QString::fromUtf8("vorher kopiert: Ärger über 3 €");
        QVERIFY(m_sway.copy({copied}));
        QCOMPARE(m_sway.clipboard({"--no-newline"}), copied);

        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Paste));
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        QSignalSpy failed(&anywhere, &ui::DictateAnywhere::typingFailed);
        const QString text = QString::fromUtf8("Eingefügt über Wayland: ") + sentence(300);
        const QString before = m_sway.editorText();
        anywhere.committed(text.toStdString(), false);
        QVERIFY(anywhere.clipboardPaste().busy());  // returned at once: the paste runs on its thread
        // The event loop turns while the paste waits a second before the restore.
        bool turned = false;
        QTimer::singleShot(0, this, [&] { turned = anywhere.clipboardPaste().busy(); });
        QVERIFY(finished.wait(kTextWaitMs));
        QVERIFY2(turned, "the event loop did not run while the paste was under way");
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.at(0).at(0).toBool(), true);   // the chord went
        QCOMPARE(finished.at(0).at(1).toBool(), true);   // the user's text is back
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(0).toString(), text);
        QCOMPARE(inserted.at(0).at(1).toString(), QString("Ctrl+V"));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), text, kTextWaitMs);
        QCOMPARE(m_sway.clipboard({"--no-newline"}), copied);
    }

    // A short piece committed while a long one is being pasted follows it.
    void piecesCommittedDuringAPasteFollowIt() {
        ui::DictateAnywhere anywhere;
        anywhere.apply(settingsFor(InsertionMode::Automatic));
        QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
        QSignalSpy inserted(&anywhere, &ui::DictateAnywhere::inserted);
        const QString first = sentence(150), second = "And a short one.";
        const QString before = m_sway.editorText();
        anywhere.committed(first.toStdString(), false);
        QVERIFY(anywhere.clipboardPaste().busy());
        anywhere.committed(second.toStdString(), false);  // waits for the paste
        QVERIFY(finished.wait(kTextWaitMs));
        QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), first + " " + second, kTextWaitMs);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(0).at(1).toString(), QString("Ctrl+V"));
        QCOMPARE(inserted.at(1).at(0).toString(), " " + second);
        QCOMPARE(inserted.at(1).at(1).toString(), QString());  // typed
    }

    // wl-copy missing: automatic types instead; paste-only fails the run and says why.
    void withoutWlClipboard() {
        // A PATH with wtype only (the typer's program), not wl-copy or wl-paste.
        const QString bin = m_dir.filePath("bin-wtype-only");
        QVERIFY(QDir().mkpath(bin));
        QVERIFY(QFile::link(QStandardPaths::findExecutable("wtype"), bin + "/wtype"));
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", bin.toLocal8Bit());
        struct RestorePath {
            QByteArray path;
            ~RestorePath() { qputenv("PATH", path); }
        } restore{path};

        {
            ui::DictateAnywhere anywhere;
            anywhere.apply(settingsFor(InsertionMode::Automatic));
            QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
            QSignalSpy failed(&anywhere, &ui::DictateAnywhere::typingFailed);
            const QString text = sentence(120);
            const QString before = m_sway.editorText();
            anywhere.committed(text.toStdString(), false);
            QVERIFY(finished.wait(kTextWaitMs));
            QCOMPARE(finished.at(0).at(0).toBool(), false);
            QTRY_COMPARE_WITH_TIMEOUT(addedSince(before), text, kTextWaitMs);  // typed instead
            QCOMPARE(failed.count(), 0);
        }
        {
            ui::DictateAnywhere anywhere;
            anywhere.apply(settingsFor(InsertionMode::Paste));
            QSignalSpy failed(&anywhere, &ui::DictateAnywhere::typingFailed);
            const QString before = m_sway.editorText();
            anywhere.committed("Only pasted.", false);
            QVERIFY(failed.wait(kTextWaitMs));
            QVERIFY2(failed.at(0).at(0).toString().contains("wl-clipboard"), qPrintable(failed.at(0).at(0).toString()));
            anywhere.committed("Not typed either.", false);  // the run has failed: nothing more goes
            QTest::qWait(300);
            QCOMPARE(addedSince(before), QString());
        }
    }

    // From the commit to the whole piece in the editor, typed and pasted, for dictated pieces of
    // typical lengths; only with HEARSAY_MEASURE_TYPING=1. Prints, asserts nothing about the times.
    void measureCommitToTarget() {
        if (qEnvironmentVariableIsEmpty("HEARSAY_MEASURE_TYPING")) QSKIP("a measurement: HEARSAY_MEASURE_TYPING=1");
        const int repeats = qEnvironmentVariableIntValue("HEARSAY_MEASURE_REPEATS") > 0
                                ? qEnvironmentVariableIntValue("HEARSAY_MEASURE_REPEATS")
                                : 20;
        for (int length : {5, 10, 20, 40, 60, 100, 150, 500}) {
            for (const InsertionMode mode : {InsertionMode::Type, InsertionMode::Paste}) {
                std::vector<double> ms;
                for (int repeat = 0; repeat < repeats; ++repeat) {
                    ui::DictateAnywhere anywhere;
                    anywhere.apply(settingsFor(mode));
                    const QString text = sentence(length - 1) + "\n";  // (a leading newline would be spaced away)
                    const qint64 want = m_sway.editorBytes() + text.toUtf8().size();
                    QSignalSpy finished(&anywhere.clipboardPaste(), &ui::ClipboardPaste::finished);
                    QElapsedTimer clock;
                    clock.start();
                    anywhere.committed(text.toStdString(), false);
                    while (m_sway.editorBytes() < want && clock.elapsed() < kTextWaitMs) {
                        QCoreApplication::processEvents();
                        QThread::usleep(200);
                    }
                    QVERIFY2(m_sway.editorBytes() >= want,
                             qPrintable(QString("the text did not arrive: %1 of %2 bytes, the editor holds \"%3\"")
                                            .arg(m_sway.editorBytes())
                                            .arg(want)
                                            .arg(m_sway.editorText().right(80))));
                    ms.push_back(clock.nsecsElapsed() / 1e6);
                    if (anywhere.clipboardPaste().busy()) QVERIFY(finished.wait(kTextWaitMs));
                }
                std::sort(ms.begin(), ms.end());
                const auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * (ms.size() - 1) + 0.5))]; };
                qInfo("typing-latency wayland-sway qt-editor %s %d chars: median %.1f ms, p90 %.1f ms (n=%zu)",
                      mode == InsertionMode::Type ? "typed" : "pasted", length, at(0.5), at(0.9), ms.size());
            }
        }
    }
};

QTEST_MAIN(TestPasteWayland)
#include "tst_paste_wayland.moc"
