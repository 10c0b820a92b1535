// A real PulseAudio server as a virtual microphone, owned by one test: its own runtime
// directory, a null sink "virt" whose monitor is the default source (paplay into the sink is
// what the "microphone" hears), and this process pointed at it (PortAudio reaches it through
// ALSA's pulse plugin). Recipe: ../shared/ENVIRONMENT.md
// (the shared folder beside the repository).
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <memory>
#include <sys/prctl.h>

class PulseServer {
public:
    PulseServer() = default;
    PulseServer(const PulseServer&) = delete;
    PulseServer& operator=(const PulseServer&) = delete;
    ~PulseServer() { stop(); }

    // Starts the server and points this process at it (PULSE_SERVER, XDG_RUNTIME_DIR, a client
    // config without autospawn). alwaysSink: also load module-always-sink (PulseAudio then
    // moves streams to a dummy sink instead of ending them when the last sink goes). Returns
    // an empty string, or what went wrong (and how to get what is missing).
    QString start(bool alwaysSink = false) {
        for (const char* tool : {"pulseaudio", "pactl", "paplay"}) {
            if (QStandardPaths::findExecutable(tool).isEmpty()) {
                return QString("'%1' not found: install pulseaudio and pulseaudio-utils (scripts/setup.sh)").arg(tool);
            }
        }
        if (!m_dir.isValid()) return "cannot create a temporary directory";
        const QString dir = m_dir.path();
        QFile config(dir + "/client.conf");
        if (!config.open(QIODevice::WriteOnly) || config.write("autospawn = no\n") <= 0) return "cannot write client.conf";
        config.close();
        qputenv("XDG_RUNTIME_DIR", dir.toUtf8());
        qputenv("PULSE_RUNTIME_PATH", (dir + "/pulse").toUtf8());
        qputenv("PULSE_STATE_PATH", (dir + "/state").toUtf8());
        qputenv("PULSE_SERVER", ("unix:" + dir + "/pulse/native").toUtf8());
        qputenv("PULSE_CLIENTCONFIG", (dir + "/client.conf").toUtf8());
        qputenv("JACK_NO_START_SERVER", "1");

        m_server = std::make_unique<QProcess>();
        m_server->setProcessChannelMode(QProcess::MergedChannels);
        // The server dies with this process, even if the test crashes before its cleanup.
        m_server->setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGKILL); });
        QStringList args{"--daemonize=no", "--exit-idle-time=-1", "-n", "--use-pid-file=no",
                         "--load=module-native-protocol-unix auth-anonymous=1",
                         "--load=module-null-sink sink_name=virt"};
        if (alwaysSink) args << "--load=module-always-sink";
        m_server->start("pulseaudio", args);
        if (!m_server->waitForStarted(10000)) return "pulseaudio did not start: " + m_server->errorString();
        QElapsedTimer timer;
        timer.start();
        while (!pactl({"info"})) {
            if (m_server->state() != QProcess::Running || timer.elapsed() > 15000) {
                return "pulseaudio did not come up: " + QString::fromUtf8(m_server->readAll());
            }
            QThread::msleep(50);
        }
        if (!pactl({"set-default-source", "virt.monitor"})) return "pactl set-default-source failed: " + m_lastOutput;
        return {};
    }

    // Runs pactl against this server; false if it fails (its output in lastOutput()).
    bool pactl(const QStringList& args) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start("pactl", args);
        const bool ok = p.waitForFinished(10000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
        m_lastOutput = QString::fromUtf8(p.readAll());
        return ok;
    }
    const QString& lastOutput() const { return m_lastOutput; }

    // Starts paplay playing `file` into the sink; see playing() and player().
    bool play(const QString& file) {
        m_player = std::make_unique<QProcess>();
        m_player->setProcessChannelMode(QProcess::MergedChannels);
        m_player->setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGKILL); });
        m_player->start("paplay", {"-d", "virt", file});
        return m_player->waitForStarted(10000);
    }
    QProcess& player() { return *m_player; }
    // Polls (there is no event loop in these tests to update QProcess's state by itself).
    bool playing() { return m_player && m_player->state() != QProcess::NotRunning && !m_player->waitForFinished(0); }

    qint64 pid() const { return m_server ? m_server->processId() : 0; }
    void signal(int sig) {
        if (pid() > 0) ::kill(pid_t(pid()), sig);
    }
    bool running() const { return m_server && m_server->state() == QProcess::Running; }
    bool waitForExit(int ms) { return !m_server || m_server->waitForFinished(ms); }

    // Stops player and server (a frozen server is thawed first, a stubborn one killed).
    void stop() {
        if (m_player && m_player->state() != QProcess::NotRunning) {
            m_player->kill();
            m_player->waitForFinished(5000);
        }
        if (m_server && m_server->state() != QProcess::NotRunning) {
            signal(SIGCONT);
            signal(SIGTERM);
            if (!m_server->waitForFinished(5000)) {
                m_server->kill();
                m_server->waitForFinished(5000);
            }
        }
        m_server.reset();
        m_player.reset();
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_server;
    std::unique_ptr<QProcess> m_player;
    QString m_lastOutput;
};
