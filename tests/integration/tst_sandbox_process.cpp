// The sandboxed process itself: who it runs as, what privileges it holds, what it can see of the host's
// processes and environment, and that it cannot outlive the sandbox (timeout, death of warren-sandbox).

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace warren::test;

namespace {

// Host pids of every process whose command line has ARGUMENT as one of its words. Read from /proc, so
// the answer is the kernel's at the moment of asking.
QList<qint64> hostProcessesWithArgument(const QByteArray& argument)
{
    QList<qint64> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric || pid == QCoreApplication::applicationPid())
            continue;
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(entry));
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        if (cmdline.readAll().split('\0').contains(argument))
            found << pid;
    }
    return found;
}

// A number no other process on the machine has in its command line: a marker for the processes a test
// starts.
QByteArray uniqueMarker()
{
    return QByteArray::number(900000000 + QRandomGenerator::global()->bounded(99999999));
}

} // namespace

class TestSandboxProcess : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void privilegesDropped();
    void runsAsAgentUser();
    void setuidBinaryGainsNothing();
    void hostProcessesInvisible();
    void hostEnvironmentNotInherited();
    void hostIdentityHidden();
    void hostProcessCannotBeSignalled();
    void timeoutKillsWholeTree_data();
    void timeoutKillsWholeTree();
    void sandboxDiesWithWarrenSandbox();
    void terminationSignalEndsSandboxCleanly_data();
    void terminationSignalEndsSandboxCleanly();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxProcess::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSandboxProcess::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
}

// No capabilities, no way to gain privileges through exec, and the seccomp filter in force.
void TestSandboxProcess::privilegesDropped()
{
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("status")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QMap<QString, QString> status;
    for (const QByteArray& line : outcome.out.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            status.insert(QString::fromLatin1(line.left(colon)), QString::fromLatin1(line.mid(colon + 1)).trimmed());
    }
    QCOMPARE(status.value(QStringLiteral("CapEff")), QStringLiteral("0000000000000000"));
    QCOMPARE(status.value(QStringLiteral("NoNewPrivs")), QStringLiteral("1"));
    QCOMPARE(status.value(QStringLiteral("Seccomp")), QStringLiteral("2")); // 2: filter mode
}

// Also when warren-sandbox runs as root: inside, the user is the unprivileged "agent".
void TestSandboxProcess::runsAsAgentUser()
{
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"),
                                                 QStringLiteral("id -u; id -un; echo \"$HOME\"")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(QString::fromUtf8(outcome.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
             (QStringList{QStringLiteral("1000"), QStringLiteral("agent"), QStringLiteral("/home/agent")}));
}

// A setuid-root binary is the oldest way up. As root the test makes one in the workspace; as a normal
// user it can only use one prepared by an administrator (WARREN_PROBE_SETUID).
void TestSandboxProcess::setuidBinaryGainsNothing()
{
    QString inside;
    QStringList options;
    if (geteuid() == 0) {
        const QString copy = m_workspace->hostPath(QStringLiteral("probe-setuid"));
        QVERIFY(QFile::copy(probeBinary(), copy));
        const QByteArray path = QFile::encodeName(copy);
        QVERIFY(chown(path.constData(), 0, 0) == 0);
        QVERIFY(chmod(path.constData(), 04755) == 0);
        inside = QStringLiteral("/workspace/probe-setuid");
    } else {
        const QString prepared = qEnvironmentVariable("WARREN_PROBE_SETUID");
        if (prepared.isEmpty())
            QSKIP("not root and WARREN_PROBE_SETUID is not set: no setuid-root binary to try");
        struct stat info {};
        QVERIFY2(stat(QFile::encodeName(prepared).constData(), &info) == 0 && info.st_uid == 0 && (info.st_mode & S_ISUID),
                 "WARREN_PROBE_SETUID must name a setuid-root copy of sandbox-probe");
        inside = prepared;
        options << QStringLiteral("--ro") << prepared;
    }

    const RunOutcome euid = m_workspace->run({inside, QStringLiteral("euid")}, options);
    QVERIFY2(euid.exited() && euid.exitCode == 0, qPrintable(euid.describe()));
    QCOMPARE(euid.verdict(), QStringLiteral("1000"));
    const RunOutcome status = m_workspace->run({inside, QStringLiteral("status")}, options);
    QVERIFY2(status.out.contains("CapEff:\t0000000000000000"), qPrintable(status.describe()));
}

// The sandbox has its own pid namespace and /proc: a host process (here a marked sleep) is not in it,
// and the processes it does see are only its own few.
void TestSandboxProcess::hostProcessesInvisible()
{
    const QByteArray marker = uniqueMarker();
    QProcess hostProcess;
    hostProcess.start(QStringLiteral("sleep"), {QString::fromLatin1(marker)});
    QVERIFY(hostProcess.waitForStarted());
    QVERIFY(!hostProcessesWithArgument(marker).isEmpty());

    const RunOutcome outcome = m_workspace->probe({QStringLiteral("ps")});
    hostProcess.kill();
    hostProcess.waitForFinished();
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY2(!outcome.out.contains(marker), qPrintable(outcome.describe()));
    const QList<QByteArray> processes = outcome.out.trimmed().split('\n');
    QVERIFY2(!processes.isEmpty() && processes.size() <= 4, qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains("sandbox-probe ps"), qPrintable(outcome.describe()));
}

// The control plane's environment holds API keys; none of it may leak into the sandbox. Only what the
// profile sets, what --env adds, and a short list of harmless variables (TERM, ...) get in.
void TestSandboxProcess::hostEnvironmentNotInherited()
{
    RunOptions options;
    options.environment.insert(QStringLiteral("WARREN_ITEST_API_KEY"), QStringLiteral("sk-must-not-leak"));
    options.environment.insert(QStringLiteral("LD_PRELOAD"), QStringLiteral("/tmp/evil.so"));
    const RunOutcome outcome = m_workspace->run({QStringLiteral("env")}, {QStringLiteral("--env"), QStringLiteral("GIVEN=yes")}, options);
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY2(!outcome.out.contains("sk-must-not-leak"), qPrintable(outcome.describe()));
    QVERIFY2(!outcome.out.contains("LD_PRELOAD"), qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains("GIVEN=yes"), qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains("HOME=/home/agent"), qPrintable(outcome.describe()));
}

// The host's user accounts and machine name stay outside: /etc/passwd is synthesized, the hostname is
// the sandbox's own.
void TestSandboxProcess::hostIdentityHidden()
{
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"),
                                                 QStringLiteral("cat /proc/sys/kernel/hostname; cat /etc/passwd")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains("agent:x:1000:1000:"), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict() != QSysInfo::machineHostName(), qPrintable(outcome.describe()));

    QFile hostPasswd(QStringLiteral("/etc/passwd"));
    QVERIFY(hostPasswd.open(QIODevice::ReadOnly));
    const QList<QByteArray> insideLines = outcome.out.split('\n');
    for (const QByteArray& line : hostPasswd.readAll().split('\n')) {
        const QByteArray user = line.left(line.indexOf(':'));
        if (user.isEmpty() || user == "root" || user == "agent" || user == "nobody")
            continue;
        const bool listed = std::any_of(insideLines.cbegin(), insideLines.cend(),
                                        [&](const QByteArray& inside) { return inside.startsWith(user + ':'); });
        QVERIFY2(!listed, qPrintable(QStringLiteral("host user %1 is listed inside").arg(QString::fromUtf8(user))));
    }
}

// The pid namespace makes host processes unaddressable: a kill aimed at a host pid finds nothing.
void TestSandboxProcess::hostProcessCannotBeSignalled()
{
    const QByteArray marker = uniqueMarker();
    QProcess hostProcess;
    hostProcess.start(QStringLiteral("sleep"), {QString::fromLatin1(marker)});
    QVERIFY(hostProcess.waitForStarted());
    const qint64 pid = hostProcess.processId();

    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("kill -KILL %1").arg(pid)});
    const bool survived = hostProcess.state() == QProcess::Running && !hostProcess.waitForFinished(0)
        && ::kill(static_cast<pid_t>(pid), 0) == 0;
    hostProcess.kill();
    hostProcess.waitForFinished();
    QVERIFY2(outcome.exited() && outcome.exitCode != 0, qPrintable(outcome.describe()));
    QVERIFY(survived);
}

void TestSandboxProcess::timeoutKillsWholeTree_data()
{
    QTest::addColumn<QString>("script"); // %1: the marker

    QTest::newRow("background child") << QStringLiteral("sleep %1 & echo started; sleep %1");
    QTest::newRow("own session (setsid)") << QStringLiteral("setsid sleep %1 & echo started; sleep %1");
    QTest::newRow("orphaned grandchild") << QStringLiteral("(sleep %1 &); echo started; sleep %1");
    QTest::newRow("ignores SIGTERM and SIGHUP") << QStringLiteral("trap '' TERM HUP; sleep %1 & echo started; wait");
}

// --timeout ends the whole tree, however the processes in it detached themselves, and warren-sandbox
// returns only once they are gone. ("started" shows the tree existed before the deadline: a shell needs
// milliseconds of the two seconds.)
void TestSandboxProcess::timeoutKillsWholeTree()
{
    QFETCH(QString, script);

    const QByteArray marker = uniqueMarker();
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), script.arg(QString::fromLatin1(marker))},
        {QStringLiteral("--timeout"), QStringLiteral("2")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 124, qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains("started"), qPrintable(outcome.describe()));
    const QList<qint64> survivors = hostProcessesWithArgument(marker);
    for (qint64 pid : survivors)
        ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY2(survivors.isEmpty(), qPrintable(QStringLiteral("%1 process(es) outlived the timeout").arg(survivors.size())));
}

// Starts warren-sandbox running `sleep MARKER` in the background and returns once the sleep has exec'd
// (so the host sees it by its marker); empty on success, otherwise what went wrong. The wait matches the
// marker as a whole argument (-z: arguments end in NUL, -x: whole): before the exec, the forked shell's
// command line holds this script, which contains the marker too.
static QString startSleeper(QProcess& sandbox, const QString& workspace, const QByteArray& marker)
{
    const QString script = QStringLiteral(
        "sleep %1 & while ! grep -qxz %1 /proc/$!/cmdline 2>/dev/null; do :; done; echo ready; wait").arg(QString::fromLatin1(marker));
    sandbox.start(sandboxBinary(), {QStringLiteral("--workspace"), workspace, QStringLiteral("--"),
                                    QStringLiteral("sh"), QStringLiteral("-c"), script});
    if (!sandbox.waitForStarted())
        return QStringLiteral("warren-sandbox did not start");
    while (!sandbox.readAllStandardOutput().contains("ready"))
        if (!sandbox.waitForReadyRead(30000))
            return QString::fromUtf8(sandbox.readAllStandardError());
    return {};
}

// If warren-sandbox itself is killed (SIGKILL: it gets no chance to clean up), the sandbox goes with
// it: nothing the agent started keeps running without a supervisor.
void TestSandboxProcess::sandboxDiesWithWarrenSandbox()
{
    const QByteArray marker = uniqueMarker();
    QProcess sandbox;
    const QString problem = startSleeper(sandbox, m_workspace->path(), marker);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    const QList<qint64> running = hostProcessesWithArgument(marker);
    QCOMPARE(running.size(), 1);
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(running.first()), 0));
    QVERIFY2(pidfd >= 0, strerror(errno));

    sandbox.kill();
    sandbox.waitForFinished();
    // A pidfd becomes readable when its process exits. The bound only turns a hang into a failure.
    pollfd exited{pidfd, POLLIN, 0};
    const int ready = poll(&exited, 1, 60000);
    close(pidfd);
    if (ready != 1)
        ::kill(static_cast<pid_t>(running.first()), SIGKILL);
    QVERIFY2(ready == 1, "the sandboxed process survived the death of warren-sandbox");
}

void TestSandboxProcess::terminationSignalEndsSandboxCleanly_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT (Ctrl-C)") << int(SIGINT);
    QTest::newRow("SIGHUP (terminal closed)") << int(SIGHUP);
}

// Asked to stop, warren-sandbox ends the whole sandbox, removes its placeholders from the workspace and
// reports the signal in its exit status (128 + N), like a shell would.
void TestSandboxProcess::terminationSignalEndsSandboxCleanly()
{
    QFETCH(int, signal);
    const QStringList before = m_workspace->entries();
    const QByteArray marker = uniqueMarker();
    QProcess sandbox;
    const QString problem = startSleeper(sandbox, m_workspace->path(), marker);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    ::kill(static_cast<pid_t>(sandbox.processId()), signal);
    QVERIFY(sandbox.waitForFinished(60000));
    QCOMPARE(sandbox.exitStatus(), QProcess::NormalExit);
    QCOMPARE(sandbox.exitCode(), 128 + signal);
    const QList<qint64> survivors = hostProcessesWithArgument(marker);
    for (qint64 pid : survivors)
        ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY2(survivors.isEmpty(), "a sandboxed process outlived warren-sandbox");
    QCOMPARE(m_workspace->entries(), before);
}

QTEST_GUILESS_MAIN(TestSandboxProcess)
#include "tst_sandbox_process.moc"
