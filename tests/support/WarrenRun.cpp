#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QSocketNotifier>
#include <QTimer>
#include <cerrno>
#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace warren::test {

QString warrenBinary() { return QProcessEnvironment::systemEnvironment().value("WARREN_CLI"); }

QProcessEnvironment warrenEnvironment(const QString& dataDir) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove("WARREN_PROVIDER");
    environment.remove("WARREN_MODEL");
    if (environment.value("WARREN_AGENT_STATIC") == "0") {
        // A sanitizer-built agent is dynamic and reserves a large shadow: LeakSanitizer would stop the
        // world with ptrace (refused by seccomp) and the address-space rlimit stands where no cgroup does.
        QDir().mkpath(dataDir);
        const QString layer = dataDir + "/sanitizer-profile.json";
        QFile file(layer);
        if (file.open(QIODevice::WriteOnly))
            file.write(R"({"env": {"ASAN_OPTIONS": "detect_leaks=0"}, "limits": {"memory_mb": 0}})");
        environment.insert("WARREN_SANDBOX_PROFILE", layer);
    }
    return environment;
}

void startWarren(QProcess& process, const QStringList& args, const QString& dataDir,
                 const QProcessEnvironment& environment) {
    process.setProcessEnvironment(environment.isEmpty() ? warrenEnvironment(dataDir) : environment);
    process.setProgram(warrenBinary());
    process.setArguments(args + QStringList{"--data-dir", dataDir});
    process.setStandardInputFile(QProcess::nullDevice());
    process.start();
}

bool readEventsUntil(QProcess& process, const std::function<bool(const nlohmann::json&)>& done, QByteArray* out,
                     int timeoutMs) {
    for (;;) {
        while (process.canReadLine()) {
            const QByteArray line = process.readLine();
            if (out)
                *out += line;
            const auto event = nlohmann::json::parse(line.toStdString(), nullptr, false);
            if (!event.is_discarded() && done(event))
                return true;
        }
        if (process.state() == QProcess::NotRunning || !process.waitForReadyRead(timeoutMs))
            return false;
    }
}

namespace {

// Waits for a started `warren` to end while this process's event loop keeps running (a mock model server
// in the test goes on answering); its stdout and stderr, unless the caller reads them elsewhere.
WarrenResult waitForWarren(QProcess& process) {
    WarrenResult result;
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
    QTimer::singleShot(kWarrenTimeoutMs, &loop, &QEventLoop::quit);
    if (process.state() != QProcess::NotRunning)
        loop.exec();
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished();
        result.err = "warren did not finish in time: ";
    } else if (process.error() == QProcess::FailedToStart) {
        result.err = "warren did not start: " + process.errorString().toUtf8();
        return result;
    } else {
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }
    result.out = process.readAllStandardOutput();
    result.err += process.readAllStandardError();
    return result;
}

} // namespace

WarrenResult runWarren(const QStringList& args, const QString& dataDir, const QProcessEnvironment& environment) {
    QProcess process;
    startWarren(process, args, dataDir, environment);
    return waitForWarren(process);
}

WarrenResult runWarrenOnTerminal(const QStringList& args, const QString& dataDir,
                                 const QProcessEnvironment& environment) {
    int master = -1;
    int slave = -1;
    if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0)
        return {-1, {}, "openpty: " + QByteArray(strerror(errno))};
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    fcntl(master, F_SETFD, FD_CLOEXEC);
    QProcess process;
    process.setChildProcessModifier([slave] {
        // The terminal becomes the child's own, on its stdin and stdout.
        setsid();
        ioctl(slave, TIOCSCTTY, 0);
        dup2(slave, STDIN_FILENO);
        dup2(slave, STDOUT_FILENO);
        close(slave);
    });
    QByteArray shown;
    const auto drain = [&] {
        char buffer[4096];
        for (ssize_t n; (n = read(master, buffer, sizeof buffer)) > 0;)
            shown.append(buffer, n);
    };
    QSocketNotifier notifier(master, QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, drain);
    process.setProcessEnvironment(environment.isEmpty() ? warrenEnvironment(dataDir) : environment);
    process.setProgram(warrenBinary());
    process.setArguments(args + QStringList{"--data-dir", dataDir});
    process.start();
    close(slave); // the child holds it now
    WarrenResult result = waitForWarren(process);
    drain();
    notifier.setEnabled(false);
    close(master);
    result.out = shown;
    return result;
}

std::vector<nlohmann::json> jsonLines(const QByteArray& text) {
    std::vector<nlohmann::json> lines;
    for (const QByteArray& line : text.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        auto value = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (!value.is_discarded())
            lines.push_back(std::move(value));
    }
    return lines;
}

QString fileHolding(const QString& dir, const QByteArray& bytes) {
    QDirIterator files(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(bytes))
            return file.fileName();
    }
    return {};
}

WarrenResult setSecret(const QStringList& args, const QByteArray& value, const QString& dataDir) {
    QProcess process;
    process.setProcessEnvironment(warrenEnvironment(dataDir));
    process.start(QProcessEnvironment::systemEnvironment().value("WARREN_CLI"),
                  QStringList{"secrets", "set"} + args + QStringList{"--data-dir", dataDir});
    process.write(value + "\n");
    process.closeWriteChannel();
    WarrenResult result;
    if (process.waitForFinished(60000) && process.exitStatus() == QProcess::NormalExit)
        result.exitCode = process.exitCode();
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

bool writeTestFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
}

QByteArray readTestFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace warren::test
