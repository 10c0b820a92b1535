// hearsay-cli run as a child process by the suites that test the program itself: its exit code
// (-2 when it crashed, -1 when it did not finish in time) and what it wrote.
#pragma once

#include <QProcess>
#include <QStringList>

namespace test {

struct CliRun {
    int exitCode = -1;
    QString out, err;
};

inline CliRun runCli(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                     int timeoutMs = 600000) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HEARSAY_CLI_PATH), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        r.err = "did not finish: " + p.errorString();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace test
