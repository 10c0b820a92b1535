// A real X server for the tests that type into other programs: Xvfb on a free display number
// (it picks one itself, -displayfd), stopped when the object goes. Plain fork/exec, so that it
// can start before the test's QApplication, which must connect to it. And the target those tests
// type into: a Qt editor window of their own with the keyboard focus.
#pragma once

#include <QApplication>
#include <QFile>
#include <QPlainTextEdit>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hearsay::test {

class XDisplay {
public:
    // Starts Xvfb; name() is ":N" once it accepts clients, empty (and error() says why) otherwise.
    XDisplay() {
        if (!m_dir.isValid()) {
            m_error = "no temporary directory";
            return;
        }
        const std::string numberFile = m_dir.filePath("display").toStdString();
        const std::string log = m_dir.filePath("xvfb.log").toStdString();
        const std::string command = "exec Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>\"$0\" >\"$1\" 2>&1";
        m_pid = fork();
        if (m_pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            execlp("bash", "bash", "-c", command.c_str(), numberFile.c_str(), log.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        if (m_pid < 0) {
            m_error = "cannot fork";
            return;
        }
        for (int i = 0; i < 200 && m_name.isEmpty(); ++i) {  // up to 20 s
            int status = 0;
            if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                break;
            }
            QFile file(QString::fromStdString(numberFile));
            if (file.open(QIODevice::ReadOnly)) {
                const QByteArray number = file.readAll().trimmed();
                if (!number.isEmpty()) m_name = ":" + QString::fromLatin1(number);
            }
            if (m_name.isEmpty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (m_name.isEmpty()) {
            QFile file(QString::fromStdString(log));
            m_error = "Xvfb did not start: " + (file.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(file.readAll()) : "");
        }
    }
    ~XDisplay() {
        if (m_pid <= 0) return;
        kill(m_pid, SIGTERM);
        int status = 0;
        for (int i = 0; i < 50 && waitpid(m_pid, &status, WNOHANG) == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (waitpid(m_pid, &status, WNOHANG) == 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, &status, 0);
        }
    }
    XDisplay(const XDisplay&) = delete;
    XDisplay& operator=(const XDisplay&) = delete;

    const QString& name() const { return m_name; }
    const QString& error() const { return m_error; }

private:
    QTemporaryDir m_dir;
    pid_t m_pid = -1;
    QString m_name;
    QString m_error;
};

// A new editor window that has the keyboard focus; null when it did not become active.
inline std::unique_ptr<QPlainTextEdit> focusedEditor() {
    auto editor = std::make_unique<QPlainTextEdit>();
    editor->setWindowTitle("typing target");
    editor->resize(600, 300);
    editor->show();
    editor->activateWindow();
    editor->setFocus();
    if (!QTest::qWaitForWindowActive(editor.get(), 10000)) return nullptr;
    return editor;
}

// The main() of a test that types into other programs: its own X server started before the
// QApplication (which connects to it), then the Qt Test object run there; exit status 1, with
// the reason, when no server starts.
template <class Test>
int runOnOwnXServer(int argc, char** argv, const char* testName) {
    XDisplay display;
    if (display.name().isEmpty()) {
        std::fprintf(stderr, "%s: %s\n", testName, qPrintable(display.error()));
        return 1;
    }
    qputenv("DISPLAY", display.name().toLocal8Bit());
    qputenv("QT_QPA_PLATFORM", "xcb");
    QApplication app(argc, argv);
    Test test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace hearsay::test
