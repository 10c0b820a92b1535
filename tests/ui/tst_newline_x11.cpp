// A dictated newline ("new line" said aloud) typed or pasted into another program on a real X
// server (Xvfb, started by the test), through the desktop application's path (ui/dictate_anywhere.h):
// the target is a chat application's message box in a process of its own (editor_process --chat:
// Return sends the message and empties the box, Shift+Return is a line break) or a plain Qt editor.
// As Return the message is sent half-written (the reason for the setting); as Shift+Enter the
// box holds both lines and nothing is sent, typed or pasted; as a space the lines are joined. The
// setting is in the panel and persisted.
#include "ui/anywhere_settings.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictate_anywhere_panel.h"
#include "x_display.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace hearsay;
using namespace hearsay::test;

namespace {

QString readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// editor_process with the keyboard focus, writing its box's text to `file` (and what it sent
// to `file`.sent in chat mode).
class Target {
public:
    Target(const QString& file, bool chat) : m_file(file) {
        m_process.start(EDITOR_PROCESS_PATH, chat ? QStringList{file, "--chat"} : QStringList{file});
        for (int i = 0; i < 200 && !m_process.readAllStandardOutput().contains("ready"); ++i) m_process.waitForReadyRead(100);
        m_ready = m_process.state() == QProcess::Running;
    }
    ~Target() {
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) m_process.kill();
        m_process.waitForFinished(5000);
    }
    bool ready() const { return m_ready; }
    QString text() const { return readAll(m_file); }
    QString sent() const { return readAll(m_file + ".sent"); }

private:
    QProcess m_process;
    QString m_file;
    bool m_ready = false;
};

const char* kDictated = "Meet at noon\nBring the slides";

} // namespace

Q_DECLARE_METATYPE(hearsay::NewlineMode)
Q_DECLARE_METATYPE(hearsay::InsertionMode)

class TestNewlineX11 : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_case = 0;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QCOMPARE(QGuiApplication::platformName(), QString("xcb"));
        QProcess layout;
        layout.start("setxkbmap", {"us"});
        QVERIFY(layout.waitForFinished(30000) && layout.exitCode() == 0);
    }

    void newlineIntoAChatBox_data() {
        QTest::addColumn<NewlineMode>("newline");
        QTest::addColumn<InsertionMode>("insertion");
        QTest::addColumn<QString>("box");   // what the message box holds afterwards
        QTest::addColumn<QString>("sent");  // what was sent
        // Typed as Return, the first line is sent on its own: what the setting is for.
        QTest::addRow("return typed") << NewlineMode::Return << InsertionMode::Type << "Bring the slides"
                                      << "Meet at noon\n";
        QTest::addRow("shift-enter typed") << NewlineMode::ShiftEnter << InsertionMode::Type
                                           << "Meet at noon\nBring the slides" << "";
        QTest::addRow("space typed") << NewlineMode::Space << InsertionMode::Type << "Meet at noon Bring the slides" << "";
        // Pasted, a newline inside the text is only text: nothing is sent either way.
        QTest::addRow("return pasted") << NewlineMode::Return << InsertionMode::Paste
                                       << "Meet at noon\nBring the slides" << "";
        QTest::addRow("shift-enter pasted") << NewlineMode::ShiftEnter << InsertionMode::Paste
                                            << "Meet at noon\nBring the slides" << "";
        QTest::addRow("space pasted") << NewlineMode::Space << InsertionMode::Paste << "Meet at noon Bring the slides"
                                      << "";
    }

    void newlineIntoAChatBox() {
        QFETCH(NewlineMode, newline);
        QFETCH(InsertionMode, insertion);
        QFETCH(QString, box);
        QFETCH(QString, sent);
        Target chat(m_dir.filePath(QString("chat-%1.txt").arg(++m_case)), true);
        QVERIFY2(chat.ready(), "the chat box did not start with the focus");
        ui::AnywhereSettings settings;
        settings.shortcut.clear();  // no global shortcut: the test commits text itself
        settings.insertion = insertion;
        settings.newline = newline;
        ui::DictateAnywhere anywhere;
        anywhere.apply(settings);
        QSignalSpy failed(&anywhere, &ui::DictateAnywhere::typingFailed);
        anywhere.runStarted();
        anywhere.committed(kDictated, false);
        QTRY_COMPARE_WITH_TIMEOUT(chat.text(), box, 10000);
        // The box holds its last piece: every key before it has been handled, a send included.
        QCOMPARE(chat.sent(), sent);
        QCOMPARE(failed.count(), 0);
        // A piece committed after the text follows it, spaced, in the same box.
        anywhere.committed(" Thanks", false);
        QTRY_COMPARE_WITH_TIMEOUT(chat.text(), box + " Thanks", 10000);
        QCOMPARE(chat.sent(), sent);
    }

    // A plain Qt editor takes Shift+Enter as a line break too.
    void shiftEnterIsALineBreakInAnEditor() {
        Target editor(m_dir.filePath(QString("editor-%1.txt").arg(++m_case)), false);
        QVERIFY2(editor.ready(), "the editor did not start with the focus");
        ui::AnywhereSettings settings;
        settings.shortcut.clear();
        settings.insertion = InsertionMode::Type;
        settings.newline = NewlineMode::ShiftEnter;
        ui::DictateAnywhere anywhere;
        anywhere.apply(settings);
        anywhere.runStarted();
        anywhere.committed("One\n\nTwo", false);
        QTRY_COMPARE_WITH_TIMEOUT(editor.text(), QString("One\n\nTwo"), 10000);
    }

    void newlineIsASetting() {
        ui::DictateAnywherePanel panel;
        ui::AnywhereSettings initial;
        QCOMPARE(initial.newline, NewlineMode::Return);  // as before the setting existed
        panel.setSettings(initial);
        auto* combo = panel.findChild<QComboBox*>("anywhereNewline");
        QVERIFY(combo);
        QCOMPARE(combo->currentIndex(), 0);
        QSignalSpy changed(&panel, &ui::DictateAnywherePanel::settingsChanged);
        combo->setCurrentIndex(1);
        QCOMPARE(changed.count(), 1);
        const auto chosen = changed.at(0).at(0).value<ui::AnywhereSettings>();
        QCOMPARE(chosen.newline, NewlineMode::ShiftEnter);
        const QString path = m_dir.filePath("settings.ini");
        {
            QSettings file(path, QSettings::IniFormat);
            chosen.save(file);
        }
        QSettings file(path, QSettings::IniFormat);
        QCOMPARE(file.value("anywhere/newline").toString(), QString("shift-enter"));
        QCOMPARE(ui::AnywhereSettings::load(file).newline, NewlineMode::ShiftEnter);
        file.setValue("anywhere/newline", "carriage");  // a word it does not know: the default
        QCOMPARE(ui::AnywhereSettings::load(file).newline, NewlineMode::Return);
    }
};

int main(int argc, char** argv) { return hearsay::test::runOnOwnXServer<TestNewlineX11>(argc, argv, "tst_newline_x11"); }

#include "tst_newline_x11.moc"
