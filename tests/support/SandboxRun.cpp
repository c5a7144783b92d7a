#include "tests/support/SandboxRun.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

namespace warren::test {

QString RunOutcome::verdict() const
{
    const qsizetype end = out.indexOf('\n');
    return QString::fromUtf8(end < 0 ? out : out.left(end)).trimmed();
}

bool RunOutcome::probeFailed() const
{
    return exited() && exitCode == 1 && verdict().startsWith(QLatin1String("errno "));
}

QString RunOutcome::describe() const
{
    QString status;
    if (crashed)
        status = QStringLiteral("crashed");
    else if (hung)
        status = QStringLiteral("hung and was killed");
    else
        status = QStringLiteral("exit %1").arg(exitCode);
    return QStringLiteral("%1, stdout: [%2], stderr: [%3]")
        .arg(status, QString::fromUtf8(out.left(2000)).trimmed(), QString::fromUtf8(err.left(2000)).trimmed());
}

QString sandboxBinary()
{
    return qEnvironmentVariable("WARREN_SANDBOX");
}

QString probeBinary()
{
    return qEnvironmentVariable("WARREN_PROBE");
}

QString missingBinaries()
{
    QStringList missing;
    for (const auto& [name, path] : {std::pair{"WARREN_SANDBOX", sandboxBinary()}, std::pair{"WARREN_PROBE", probeBinary()}}) {
        if (path.isEmpty())
            missing << QStringLiteral("%1 is not set (run the test through ctest)").arg(QLatin1String(name));
        else if (!QFileInfo(path).isExecutable())
            missing << QStringLiteral("%1=%2 is not an executable file").arg(QLatin1String(name), path);
    }
    return missing.join(QLatin1String("; "));
}

QString sandboxUnusable()
{
    if (const QString missing = missingBinaries(); !missing.isEmpty())
        return missing;
    Workspace workspace;
    if (!workspace.isValid() || !workspace.installProbe())
        return QStringLiteral("cannot prepare a workspace in %1").arg(QDir::tempPath());
    const RunOutcome outcome = workspace.probe({QStringLiteral("euid")});
    if (!outcome.exited() || outcome.exitCode != 0 || outcome.verdict() != QLatin1String("1000"))
        return QStringLiteral("the sandbox does not run the probe as uid 1000: ") + outcome.describe();
    return {};
}

RunOutcome runProgram(const QString& program, const QStringList& arguments, const RunOptions& options)
{
    QProcess process;
    process.setProgram(program);
    process.setArguments(arguments);
    process.setProcessEnvironment(options.environment);
    if (!options.workingDirectory.isEmpty())
        process.setWorkingDirectory(options.workingDirectory);
    process.start();
    RunOutcome outcome;
    if (!process.waitForStarted()) {
        outcome.err = process.errorString().toUtf8();
        return outcome;
    }
    outcome.pid = process.processId();
    if (!options.input.isEmpty())
        process.write(options.input);
    process.closeWriteChannel();
    if (!process.waitForFinished(options.deadlineMs)) {
        outcome.hung = true;
        process.kill();
        process.waitForFinished();
    }
    outcome.out = process.readAllStandardOutput();
    outcome.err = process.readAllStandardError();
    if (!outcome.hung) {
        outcome.crashed = process.exitStatus() == QProcess::CrashExit;
        if (!outcome.crashed)
            outcome.exitCode = process.exitCode();
    }
    return outcome;
}

RunOutcome runSandbox(const QStringList& arguments, const RunOptions& options)
{
    return runProgram(sandboxBinary(), arguments, options);
}

Workspace::Workspace()
    : m_dir(QDir::tempPath() + QStringLiteral("/warren-itest-XXXXXX"))
{
}

QString Workspace::hostPath(const QString& relative) const
{
    return m_dir.filePath(relative);
}

bool Workspace::installProbe()
{
    const QString target = hostPath(QStringLiteral("sandbox-probe"));
    QFile::remove(target);
    return QFile::copy(probeBinary(), target)
        && QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
                                             | QFileDevice::ReadGroup | QFileDevice::ExeGroup
                                             | QFileDevice::ReadOther | QFileDevice::ExeOther);
}

bool Workspace::writeFile(const QString& relative, const QByteArray& content, bool executable) const
{
    const QString target = hostPath(relative);
    if (!QDir().mkpath(QFileInfo(target).absolutePath()))
        return false;
    QFile file(target);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(content) != content.size())
        return false;
    file.close();
    if (executable)
        return file.setPermissions(file.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeGroup
                                   | QFileDevice::ExeOther);
    return true;
}

QByteArray Workspace::readFile(const QString& relative) const
{
    QFile file(hostPath(relative));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool Workspace::exists(const QString& relative) const
{
    // A dangling symlink still counts: it is something left behind.
    return QFileInfo(hostPath(relative)).exists() || QFileInfo(hostPath(relative)).isSymLink();
}

QStringList Workspace::entries() const
{
    QStringList found;
    const QDir root(path());
    QDirIterator it(path(), QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        found << root.relativeFilePath(info.filePath()) + (info.isDir() && !info.isSymLink() ? QStringLiteral("/") : QString());
    }
    found.sort();
    return found;
}

RunOutcome Workspace::run(const QStringList& command, const QStringList& sandboxOptions, const RunOptions& options) const
{
    QStringList arguments{QStringLiteral("--workspace"), path()};
    arguments << sandboxOptions << QStringLiteral("--") << command;
    return runSandbox(arguments, options);
}

RunOutcome Workspace::probe(const QStringList& probeArguments, const QStringList& sandboxOptions,
                            const RunOptions& options) const
{
    return run(QStringList{QString::fromLatin1(kProbeInside)} + probeArguments, sandboxOptions, options);
}

} // namespace warren::test
