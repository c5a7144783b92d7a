#include "WarrenRun.h"

#include <QDir>
#include <QFile>

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
    startWarren(process, args, dataDir, environment);
    WarrenResult result;
    if (!process.waitForStarted() || !process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        result.err = "warren did not finish: " + process.errorString().toUtf8();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

} // namespace warren::test
