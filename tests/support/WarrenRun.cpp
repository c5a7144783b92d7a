#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

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

WarrenResult runWarren(const QStringList& args, const QString& dataDir, const QProcessEnvironment& environment) {
    QProcess process;
    WarrenResult result;
    // The event loop keeps running meanwhile: a mock model server in this process goes on answering.
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
    QTimer::singleShot(kWarrenTimeoutMs, &loop, &QEventLoop::quit);
    startWarren(process, args, dataDir, environment);
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

} // namespace warren::test
