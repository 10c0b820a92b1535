// A real Wayland desktop for the typing tests: a headless sway started in a directory of the
// test's own, with a Qt editor (tests/ui/editor_process) of another process as a native Wayland
// client that sway gives the keyboard focus. The editor writes its whole text to a file whenever
// it changes, so what typing or pasting delivered can be read back.
//
// sway refuses to run as root: as root it is started as the user nobody (setpriv). Used by
// core.typing_wayland (hearsay-cli type) and ui.paste_wayland (the desktop application's paste).
#pragma once

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QThread>

#include <sys/types.h>
#include <unistd.h>

#include "core/typing/wayland_typer.h"

namespace hearsay::test {

class HeadlessSway {
public:
    static constexpr int kPolls = 300;  // 100 ms apart: a generous bound for the compositor and the editor
    static constexpr uid_t kNobody = 65534;

    ~HeadlessSway() {
        for (QProcess* p : {&m_editor, &m_sway}) {
            if (p->state() == QProcess::NotRunning) continue;
            p->terminate();
            if (!p->waitForFinished(10000)) {
                p->kill();
                p->waitForFinished(10000);
            }
        }
    }

    // Why these tests cannot run here (a program not installed), or empty.
    static QString missingProgram() {
        for (const char* program : {"sway", "swaymsg", "wtype", "wl-copy", "wl-paste"}) {
            if (QStandardPaths::findExecutable(program).isEmpty())
                return QString(program) + " is not installed (Debian packages sway, wtype, wl-clipboard; scripts/setup.sh)";
        }
        return {};
    }

    // Starts sway in `dir` (which it must be able to enter) and the editor at `editorPath`, and
    // waits until the editor has the keyboard focus. Empty when it has; otherwise what went wrong.
    QString start(const QString& dir, const QString& editorPath) {
        const bool root = geteuid() == 0;
        QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup |
                                       QFile::ExeOther);
        m_runtime = dir + "/runtime";
        if (!QDir().mkpath(m_runtime)) return "cannot make " + m_runtime;
        QFile::setPermissions(m_runtime, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        if (root && chown(m_runtime.toLocal8Bit().constData(), kNobody, kNobody) != 0) return "cannot hand the runtime directory to nobody";
        const QString config = dir + "/sway.config";
        {
            QFile file(config);
            if (!file.open(QIODevice::WriteOnly)) return "cannot write " + config;
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
        if (!m_sway.waitForStarted(20000)) return "sway did not start: " + m_sway.errorString();
        for (int i = 0; i < kPolls && (m_display.isEmpty() || m_swaySocket.isEmpty()); ++i) {
            QThread::msleep(100);
            m_display = findEntry(m_runtime, "wayland-*");
            const QString ipc = findEntry(m_runtime, "sway-ipc.*.sock");
            if (!ipc.isEmpty()) m_swaySocket = m_runtime + "/" + ipc;
            if (m_sway.state() != QProcess::Running) return "sway ended: " + QString::fromUtf8(m_sway.readAll());
        }
        if (m_display.isEmpty() || m_swaySocket.isEmpty()) return "sway made no sockets";

        m_editorFile = dir + "/editor.txt";
        QProcessEnvironment editorEnv = clientEnvironment();
        editorEnv.insert("QT_QPA_PLATFORM", "wayland");
        m_editor.setProcessEnvironment(editorEnv);
        m_editor.start(editorPath, {m_editorFile});
        QByteArray said;
        for (int i = 0; i < kPolls && !said.contains("ready") && m_editor.state() != QProcess::NotRunning; ++i) {
            m_editor.waitForReadyRead(100);
            said += m_editor.readAllStandardOutput();
        }
        if (!said.contains("ready"))
            return "the Qt editor got no focus under sway (qt6-wayland installed?): " +
                   QString::fromUtf8(m_editor.readAllStandardError());
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
        if (focused != "editor_process") return "sway gave the focus to '" + focused + "', not the editor";
        return {};
    }

    // The environment of a client of this compositor (not of an X server, and away from the
    // session bus and desktop of whoever runs the tests: no portal of theirs is asked).
    QProcessEnvironment clientEnvironment() const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "HEARSAY_TYPER", "WAYLAND_SOCKET", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP"})
            env.remove(name);
        env.insert("XDG_RUNTIME_DIR", m_runtime);
        env.insert("WAYLAND_DISPLAY", m_display);
        env.insert("SWAYSOCK", m_swaySocket);
        env.insert("LANG", "C.UTF-8");
        return env;
    }

    // Makes this process a client of the compositor: the typer it opens is wtype's on this sway.
    void useInThisProcess() const {
        for (const char* name : {"DISPLAY", "HEARSAY_TYPER", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP"}) qunsetenv(name);
        qputenv("XDG_RUNTIME_DIR", m_runtime.toLocal8Bit());
        qputenv("WAYLAND_DISPLAY", m_display.toLocal8Bit());
        qputenv("SWAYSOCK", m_swaySocket.toLocal8Bit());
    }

    // The editor's whole text now.
    QString editorText() const {
        QFile file(m_editorFile);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }
    qint64 editorBytes() const { return QFile(m_editorFile).size(); }

    // The clipboard's content as wl-paste ARGS prints it ("--no-newline", "--list-types").
    QString clipboard(const QStringList& args) const {
        QProcess p;
        p.setProcessEnvironment(clientEnvironment());
        p.start("wl-paste", args);
        if (!p.waitForFinished(20000)) return "<wl-paste did not finish>";
        return QString::fromUtf8(p.readAllStandardOutput());
    }
    // Sets the clipboard as another program would (wl-copy ARGS; returns once sway has it).
    bool copy(const QStringList& args) const {
        QProcess p;
        p.setProcessEnvironment(clientEnvironment());
        p.start("wl-copy", args);
        return p.waitForFinished(20000) && p.exitCode() == 0;
    }

    bool editorRunning() const { return m_editor.state() == QProcess::Running; }
    // Whether sway still runs, and what it said: for a test's failure message.
    QString compositorState() {
        return QString(m_sway.state() == QProcess::Running ? "sway runs" : "sway has ended") + "; it said: " +
               QString::fromUtf8(m_sway.readAll()).right(2000);
    }
    // What the editor said on standard error, and how it ended when it has.
    QString editorErrors() {
        QString said = QString::fromUtf8(m_editor.readAllStandardError());
        if (m_editor.state() == QProcess::NotRunning)
            said += m_editor.exitStatus() == QProcess::CrashExit ? " (the editor crashed)"
                                                                  : QString(" (the editor exited with status %1)").arg(m_editor.exitCode());
        return said;
    }
    const QString& display() const { return m_display; }
    const QString& runtime() const { return m_runtime; }
    const QString& swaySocket() const { return m_swaySocket; }

private:
    // The first entry of `dir` whose name matches `pattern` (a socket the compositor made).
    static QString findEntry(const QString& dir, const QString& pattern) {
        const QStringList names = QDir(dir).entryList({pattern}, QDir::System | QDir::Files | QDir::NoDotAndDotDot);
        for (const QString& name : names)
            if (!name.endsWith(".lock")) return name;
        return {};
    }

    QString m_runtime, m_display, m_swaySocket, m_editorFile;
    QProcess m_sway, m_editor;
};

} // namespace hearsay::test
