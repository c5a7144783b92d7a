// The container backends attacked for real: warren-sandbox --backend podman runs sandbox-probe (static, so it
// runs on any image) in the test image, and each attack the bubblewrap suites make must fail here too. Also
// the lifecycle: the container is gone after an exit, a timeout, a signal and a SIGKILL of warren-sandbox.
// The same suite runs as tst_kube_backend with WARREN_TEST_BACKEND=kube: the Pod a cluster would run, played
// by podman kube play, where "the container" is the pod with its tmpfs volumes.
//
// Needs podman and the image: $WARREN_TEST_IMAGE (default localhost/warren-test:3), which
// packaging/make-test-image.sh builds. Podman reads $CONTAINERS_CONF; when that is unset and runc is
// installed, the repository's packaging/containers.conf is used (see it for why).

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren::test;

namespace {

QString engine() { return QStandardPaths::findExecutable(QStringLiteral("podman")); }

// podman (the default) or kube.
QString backend()
{
    const QString fromEnv = qEnvironmentVariable("WARREN_TEST_BACKEND");
    return fromEnv.isEmpty() ? QStringLiteral("podman") : fromEnv;
}
bool kube() { return backend() == QLatin1String("kube"); }

QString image()
{
    const QString fromEnv = qEnvironmentVariable("WARREN_TEST_IMAGE");
    return fromEnv.isEmpty() ? QStringLiteral("localhost/warren-test:3") : fromEnv;
}

// `podman ARGS`, stdout only.
RunOutcome podman(const QStringList& arguments) { return runProgram(engine(), arguments); }

// Names of Warren's containers (kube: pods and their volumes) whose owner label names this pid.
QStringList containersOwnedBy(qint64 pid)
{
    QStringList names;
    if (kube()) {
        for (const QString& kind : {QStringLiteral("pod"), QStringLiteral("volume")}) {
            const RunOutcome listed = podman({kind, kind == QLatin1String("pod") ? QStringLiteral("ps") : QStringLiteral("ls"),
                                              QStringLiteral("--filter"), QStringLiteral("label=warren.sandbox=1"),
                                              QStringLiteral("--format"),
                                              QStringLiteral("{{.Name}}\t{{index .Labels \"warren.owner-pid\"}}")});
            for (const QString& line : QString::fromUtf8(listed.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
                if (line.section(QLatin1Char('\t'), 1) == QString::number(pid))
                    names << line.section(QLatin1Char('\t'), 0, 0);
        }
        return names;
    }
    const RunOutcome listed = podman({QStringLiteral("ps"), QStringLiteral("--all"), QStringLiteral("--filter"),
                                      QStringLiteral("label=warren.sandbox=1"), QStringLiteral("--format"),
                                      QStringLiteral("{{.Names}}\t{{index .Labels \"warren.owner\"}}")});
    const QString marker = QStringLiteral(":%1:").arg(pid);
    for (const QString& line : QString::fromUtf8(listed.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.contains(marker))
            names << line.section(QLatin1Char('\t'), 0, 0);
    return names;
}

// The idmapped mounts (views) of a directory: /proc/self/mountinfo lines whose root, the mounted directory
// within its file system (field 4), ends with the directory's unique name.
QStringList viewsOf(const QString& directory) {
    QFile mountinfo(QStringLiteral("/proc/self/mountinfo"));
    if (!mountinfo.open(QIODevice::ReadOnly))
        return {QStringLiteral("(cannot read /proc/self/mountinfo)")};
    const QString name = QLatin1Char('/') + QFileInfo(directory).fileName();
    QStringList views;
    for (const QString& line :
         QString::fromUtf8(mountinfo.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QStringList fields = line.split(QLatin1Char(' '));
        if (fields.size() > 5 && fields[3].endsWith(name) && fields[5].contains(QStringLiteral("idmapped")))
            views << line;
    }
    return views;
}

} // namespace

class TestContainerBackend : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void commandStatusIsPropagated_data();
    void commandStatusIsPropagated();
    void runsUnprivileged();
    void deniedCall_data();
    void deniedCall();
    void networkUnreachable_data();
    void networkUnreachable();
    void hostLoopbackListenerUnreachable();
    void writeOutsideWorkspaceFails_data();
    void writeOutsideWorkspaceFails();
    void workspaceWriteSucceeds();
    void filesAreTheWorkspaceOwners();
    void rootOwnedWorkspaceIsWrittenAsRoot();
    void killedLaunchersViewIsUnmounted();
    void protectedPathCannotBeWritten_data();
    void protectedPathCannotBeWritten();
    void existingProtectedFileIsItselfAndReadOnly();
    void hostFileOutsideWorkspaceUnreadable();
    void pidsLimit();
    void memoryLimit();
    void timeoutIs124AndRemovesContainer();
    void missingImageIs125WithFix();
    void sigtermStopsAndRemovesContainer();
    void sigkillOfLauncherRemovesContainer();

private:
    QStringList options(const QStringList& more = {}) const;
    RunOutcome probe(const QStringList& arguments, const QStringList& more = {}) const;

    std::unique_ptr<Workspace> m_workspace;
};

void TestContainerBackend::initTestCase()
{
    const QString missing = missingBinaries();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    if (engine().isEmpty())
        QSKIP("podman is not installed: the container backend cannot be tested here");
    if (qEnvironmentVariableIsEmpty("CONTAINERS_CONF") && !QStandardPaths::findExecutable(QStringLiteral("runc")).isEmpty()) {
        const QString conf = QDir(qEnvironmentVariable("WARREN_RESOURCES")).filePath(QStringLiteral("../packaging/containers.conf"));
        if (QFileInfo::exists(conf))
            qputenv("CONTAINERS_CONF", QFileInfo(conf).canonicalFilePath().toLocal8Bit());
    }
    const RunOutcome info = podman({QStringLiteral("info")});
    if (info.exitCode != 0)
        QSKIP(qPrintable(QStringLiteral("podman does not answer here: ") + info.describe()));
    if (podman({QStringLiteral("image"), QStringLiteral("inspect"), image()}).exitCode != 0)
        QSKIP(qPrintable(QStringLiteral("the image %1 is not present: build it with packaging/make-test-image.sh, "
                                        "or set WARREN_TEST_IMAGE").arg(image())));
}

void TestContainerBackend::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
    // As root the container runs as the profile's uid 1000, which must be able to use the workspace (the
    // files it writes there are uid 1000's; see docs/SECURITY.md).
    if (geteuid() == 0) {
        QVERIFY(chown(QFile::encodeName(m_workspace->path()).constData(), 1000, 1000) == 0);
        QVERIFY(chown(QFile::encodeName(m_workspace->hostPath(QStringLiteral("sandbox-probe"))).constData(), 1000, 1000) == 0);
    }
}

QStringList TestContainerBackend::options(const QStringList& more) const
{
    return QStringList{QStringLiteral("--backend"), backend(), QStringLiteral("--image"), image()} + more;
}

RunOutcome TestContainerBackend::probe(const QStringList& arguments, const QStringList& more) const
{
    return m_workspace->probe(arguments, options(more));
}

void TestContainerBackend::commandStatusIsPropagated_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<int>("status");
    QTest::newRow("success") << QStringList{"/bin/sh", "-c", "exit 0"} << 0;
    QTest::newRow("failure") << QStringList{"/bin/sh", "-c", "exit 7"} << 7;
    QTest::newRow("killed by a signal") << QStringList{"/bin/sh", "-c", "kill -9 $$"} << exitForSignal(SIGKILL);
    // podman's --init (catatonit) reports a command it cannot execute with status 1 and its message, where
    // bwrap's launcher says 127; in a pod the runtime cannot start it: podman's own 125, with runc's message.
    QTest::newRow("command not found") << QStringList{"/no/such/program"} << (kube() ? 125 : 1);
}

void TestContainerBackend::commandStatusIsPropagated()
{
    QFETCH(QStringList, command);
    QFETCH(int, status);
    const RunOutcome outcome = m_workspace->run(command, options());
    QVERIFY2(outcome.exited() && outcome.exitCode == status, qPrintable(outcome.describe()));
}

void TestContainerBackend::runsUnprivileged()
{
    RunOptions input;
    input.input = "from stdin\n";
    // A pod has no stdin (podman kube play attaches none): the line read is empty.
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
         QStringLiteral("read line; echo \"$line\"; id -u; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status")},
        options(), input);
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    const QString out = QString::fromUtf8(outcome.out);
    QVERIFY2(out.startsWith(kube() ? QLatin1String("\n") : QLatin1String("from stdin\n")), qPrintable(outcome.describe()));
    QVERIFY2(out.contains(QLatin1String("\n1000\n")) || out.contains(QStringLiteral("\n%1\n").arg(getuid())),
             qPrintable(outcome.describe()));
    QVERIFY2(!out.contains(QLatin1String("\n0\n")), qPrintable(outcome.describe()));
    for (const char* cap : {"CapEff", "CapPrm", "CapBnd"})
        QVERIFY2(out.contains(QStringLiteral("%1:\t0000000000000000").arg(QLatin1String(cap))), qPrintable(outcome.describe()));
    QVERIFY2(out.contains(QLatin1String("NoNewPrivs:\t1")), qPrintable(outcome.describe()));
    QVERIFY2(out.contains(QLatin1String("Seccomp:\t2")), qPrintable(outcome.describe()));
}

void TestContainerBackend::deniedCall_data()
{
    QTest::addColumn<QStringList>("probe");
    QTest::newRow("ptrace attach to own child") << QStringList{"ptrace-attach"};
    QTest::newRow("process_vm_readv of own child") << QStringList{"process_vm_readv"};
    QTest::newRow("unshare user namespace") << QStringList{"userns"};
    QTest::newRow("raw clone with CLONE_NEWUSER") << QStringList{"clone-newuser"};
    QTest::newRow("clone3 with CLONE_NEWUSER") << QStringList{"clone3-newuser"};
    QTest::newRow("mount tmpfs") << QStringList{"mount"};
    QTest::newRow("keyctl join session keyring") << QStringList{"keyctl"};
    QTest::newRow("add_key to process keyring") << QStringList{"add_key"};
    QTest::newRow("bpf") << QStringList{"bpf"};
    QTest::newRow("io_uring_setup") << QStringList{"io_uring"};
    QTest::newRow("perf_event_open on self") << QStringList{"perf_event_open"};
    QTest::newRow("userfaultfd") << QStringList{"userfaultfd"};
    QTest::newRow("personality PER_LINUX32") << QStringList{"personality"};
    QTest::newRow("name_to_handle_at") << QStringList{"name_to_handle_at"};
    QTest::newRow("netlink socket") << QStringList{"socket-netlink"};
    QTest::newRow("packet socket") << QStringList{"socket", "packet"};
}

void TestContainerBackend::deniedCall()
{
    QFETCH(QStringList, probe);
    const RunOutcome outcome = this->probe(probe);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
}

void TestContainerBackend::networkUnreachable_data()
{
    QTest::addColumn<QStringList>("probe");
    QTest::addColumn<QStringList>("policy");
    const QStringList none{QStringLiteral("--network"), QStringLiteral("none")};
    const QStringList loopback{QStringLiteral("--network"), QStringLiteral("loopback")};
    QTest::newRow("tcp to a public address, network none") << QStringList{"connect-tcp", "1.1.1.1", "443"} << none;
    QTest::newRow("udp to a public address, network none") << QStringList{"connect-udp", "1.1.1.1", "53"} << none;
    QTest::newRow("tcp to a public address, network loopback") << QStringList{"connect-tcp", "1.1.1.1", "443"} << loopback;
    QTest::newRow("udp to a public address, network loopback") << QStringList{"connect-udp", "1.1.1.1", "53"} << loopback;
    QTest::newRow("inet socket, network none") << QStringList{"socket", "inet"} << none;
}

void TestContainerBackend::networkUnreachable()
{
    QFETCH(QStringList, probe);
    QFETCH(QStringList, policy);
    const RunOutcome outcome = this->probe(probe, policy);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
}

void TestContainerBackend::hostLoopbackListenerUnreachable()
{
    // A listener on the host's loopback: under --network loopback the container has its own lo.
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    QVERIFY(listener >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    QVERIFY(bind(listener, reinterpret_cast<sockaddr*>(&address), length) == 0);
    QVERIFY(listen(listener, 4) == 0);
    QVERIFY(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    const RunOutcome outcome = probe({QStringLiteral("connect-tcp"), QStringLiteral("127.0.0.1"),
                                      QString::number(ntohs(address.sin_port))},
                                     {QStringLiteral("--network"), QStringLiteral("loopback")});
    const int accepted = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (accepted >= 0)
        close(accepted);
    close(listener);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(accepted < 0, "the host listener received a connection from the container");
}

void TestContainerBackend::writeOutsideWorkspaceFails_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("image root") << QStringLiteral("/planted");
    QTest::newRow("/etc") << QStringLiteral("/etc/planted");
    QTest::newRow("/usr/bin") << QStringLiteral("/usr/bin/planted");
    QTest::newRow("/etc/passwd") << QStringLiteral("/etc/passwd");
    QTest::newRow("/proc/sys") << QStringLiteral("/proc/sys/kernel/hostname");
}

void TestContainerBackend::writeOutsideWorkspaceFails()
{
    QFETCH(QString, path);
    const RunOutcome outcome = probe({QStringLiteral("write-file"), path});
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
}

void TestContainerBackend::workspaceWriteSucceeds()
{
    const RunOutcome outcome = probe({QStringLiteral("write-file"), QStringLiteral("/workspace/made-inside")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY(m_workspace->exists(QStringLiteral("made-inside")));
    QVERIFY2(QFileInfo(m_workspace->hostPath(QStringLiteral("made-inside"))).ownerId() != 0,
             "the container wrote a file as root");
}

// As root, the container runs as the workspace's owner (never root), so what the command writes there is
// the owner's, as if the owner had run it.
void TestContainerBackend::filesAreTheWorkspaceOwners()
{
    if (geteuid() != 0)
        QSKIP("only root can give the workspace to another user");
    QVERIFY(chmod(QFile::encodeName(m_workspace->path()).constData(), 0700) == 0);
    QVERIFY(chown(QFile::encodeName(m_workspace->path()).constData(), 1234, 1235) == 0);
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("id -u; id -g; echo made > /workspace/by-owner")},
        options());
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(QString::fromUtf8(outcome.out), QStringLiteral("1234\n1235\n"));
    const QFileInfo made(m_workspace->hostPath(QStringLiteral("by-owner")));
    QVERIFY(made.exists());
    QCOMPARE(made.ownerId(), 1234u);
    QCOMPARE(made.groupId(), 1235u);
}

// Root's 0700 workspace: the container runs as uid 1000, never root, on an idmapped view of it; what it
// writes is root's on the host, and the view and the placeholders are gone after the run.
void TestContainerBackend::rootOwnedWorkspaceIsWrittenAsRoot() {
    if (geteuid() != 0)
        QSKIP("only root can own the workspace as root and make an idmapped view of it");
    QVERIFY(chmod(QFile::encodeName(m_workspace->path()).constData(), 0700) == 0);
    QVERIFY(chown(QFile::encodeName(m_workspace->path()).constData(), 0, 0) == 0);
    QVERIFY(chown(QFile::encodeName(m_workspace->hostPath(QStringLiteral("sandbox-probe"))).constData(), 0,
                  0) == 0);
    const QStringList before = m_workspace->entries();
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
         QStringLiteral("id -u; id -g; echo made > /workspace/by-root; stat -c %u /workspace/by-root")},
        options());
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(QString::fromUtf8(outcome.out), QStringLiteral("1000\n1000\n1000\n"));
    const QFileInfo made(m_workspace->hostPath(QStringLiteral("by-root")));
    QVERIFY(made.exists());
    QCOMPARE(made.ownerId(), 0u);
    QCOMPARE(made.groupId(), 0u);
    QCOMPARE(viewsOf(m_workspace->path()), QStringList{});
    QStringList expected = before;
    expected << QStringLiteral("by-root");
    expected.sort();
    QCOMPARE(m_workspace->entries(), expected); // the placeholders made for the view are gone too
}

// A launcher killed while its container runs leaves its view mounted; the next launcher's sweep detaches it.
void TestContainerBackend::killedLaunchersViewIsUnmounted() {
    if (geteuid() != 0)
        QSKIP("only root can own the workspace as root and make an idmapped view of it");
    QVERIFY(chown(QFile::encodeName(m_workspace->path()).constData(), 0, 0) == 0);
    QProcess launcher;
    launcher.setProgram(sandboxBinary());
    launcher.setArguments(
        QStringList{QStringLiteral("--workspace"), m_workspace->path()} + options() +
        QStringList{QStringLiteral("--"), QStringLiteral("/bin/sleep"), QStringLiteral("600")});
    launcher.start();
    QVERIFY(launcher.waitForStarted());
    const qint64 pid = launcher.processId();
    QTRY_VERIFY_WITH_TIMEOUT(!containersOwnedBy(pid).isEmpty(), 60000);
    QCOMPARE(viewsOf(m_workspace->path()).size(), 1);
    launcher.kill();
    QVERIFY(launcher.waitForFinished(60000));
    QCOMPARE(viewsOf(m_workspace->path()).size(), 1);
    const RunOutcome next = m_workspace->run(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("exit 0")}, options());
    QVERIFY2(next.exited() && next.exitCode == 0, qPrintable(next.describe()));
    QCOMPARE(viewsOf(m_workspace->path()), QStringList{});
    QTRY_VERIFY_WITH_TIMEOUT(containersOwnedBy(pid).isEmpty(), 60000);
}

void TestContainerBackend::protectedPathCannotBeWritten_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow(".envrc (placeholder)") << QStringLiteral("/workspace/.envrc");
    QTest::newRow(".git/hooks (placeholder directory)") << QStringLiteral("/workspace/.git/hooks/pre-commit");
    QTest::newRow(".vscode (placeholder directory)") << QStringLiteral("/workspace/.vscode/settings.json");
}

void TestContainerBackend::protectedPathCannotBeWritten()
{
    QFETCH(QString, path);
    const QStringList before = m_workspace->entries();
    const RunOutcome outcome = probe({QStringLiteral("write-file"), path});
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    // The placeholders' mount points are removed again.
    QCOMPARE(m_workspace->entries(), before);
}

// A protected path that exists is mounted read-only over itself: the file itself (not another one, not the
// workspace), and no write reaches it.
void TestContainerBackend::existingProtectedFileIsItselfAndReadOnly()
{
    QVERIFY(QDir(m_workspace->path()).mkpath(QStringLiteral(".git")));
    QFile config(m_workspace->hostPath(QStringLiteral(".git/config")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("[core]\n");
    config.close();
    if (geteuid() == 0)
        QVERIFY(chown(QFile::encodeName(m_workspace->hostPath(QStringLiteral(".git"))).constData(), 1000, 1000) == 0 &&
                chown(QFile::encodeName(config.fileName()).constData(), 1000, 1000) == 0);
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
         QStringLiteral("cat /workspace/.git/config; echo '[alias]' >> /workspace/.git/config && echo WRITTEN")},
        options());
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    QCOMPARE(QString::fromUtf8(outcome.out), QStringLiteral("[core]\n"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QCOMPARE(config.readAll(), QByteArray("[core]\n"));
}

void TestContainerBackend::hostFileOutsideWorkspaceUnreadable()
{
    QTemporaryDir outside;
    QVERIFY(outside.isValid());
    QFile secret(outside.filePath(QStringLiteral("secret")));
    QVERIFY(secret.open(QIODevice::WriteOnly));
    secret.write("host secret\n");
    secret.close();
    QVERIFY(QFile::setPermissions(secret.fileName(), QFileDevice::ReadOwner | QFileDevice::ReadOther));
    QVERIFY(QFile::setPermissions(outside.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                                      QFileDevice::ExeOther | QFileDevice::WriteOwner));
    for (const QString& path : {secret.fileName(), QStringLiteral("/etc/shadow"), QStringLiteral("/root/.bash_history")}) {
        const RunOutcome outcome = probe({QStringLiteral("read-file"), path});
        QVERIFY2(outcome.probeFailed(), qPrintable(path + QLatin1String(": ") + outcome.describe()));
        QVERIFY(!outcome.out.contains("host secret"));
    }
}

void TestContainerBackend::pidsLimit()
{
    const RunOutcome outcome = probe({QStringLiteral("forkbomb"), QStringLiteral("4096")},
                                     {QStringLiteral("--pids"), QStringLiteral("32")});
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict().startsWith(QLatin1String("errno EAGAIN")), qPrintable(outcome.describe()));
}

void TestContainerBackend::memoryLimit()
{
    const RunOutcome outcome = probe({QStringLiteral("memhog"), QStringLiteral("1024")},
                                     {QStringLiteral("--memory-mb"), QStringLiteral("64")});
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    if (outcome.exitCode == exitForSignal(SIGKILL))
        return; // the memory cgroup's OOM killer stopped it
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict().startsWith(QLatin1String("errno ENOMEM")), qPrintable(outcome.describe()));
}

void TestContainerBackend::timeoutIs124AndRemovesContainer()
{
    const RunOutcome outcome = m_workspace->run({QStringLiteral("/bin/sleep"), QStringLiteral("600")},
                                                options({QStringLiteral("--timeout"), QStringLiteral("2")}));
    QVERIFY2(outcome.exited() && outcome.exitCode == 124, qPrintable(outcome.describe()));
    QVERIFY2(QString::fromUtf8(outcome.err).contains(QLatin1String("timed out")), qPrintable(outcome.describe()));
    // Only this run's: other tests' containers may come and go meanwhile.
    const QStringList left = containersOwnedBy(outcome.pid);
    QVERIFY2(left.isEmpty(), qPrintable(QStringLiteral("left behind: ") + left.join(QLatin1String(", "))));
}

void TestContainerBackend::missingImageIs125WithFix()
{
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("touch /workspace/ran")},
        {QStringLiteral("--backend"), backend(), QStringLiteral("--image"), QStringLiteral("localhost/warren-no-such-image:0")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 125, qPrintable(outcome.describe()));
    QVERIFY(!m_workspace->exists(QStringLiteral("ran")));
    const QString err = QString::fromUtf8(outcome.err);
    QVERIFY2(err.contains(QLatin1String("FAILED  image")) && err.contains(QLatin1String("podman pull")), qPrintable(outcome.describe()));
}

void TestContainerBackend::sigtermStopsAndRemovesContainer()
{
    QProcess launcher;
    launcher.setProgram(sandboxBinary());
    launcher.setArguments(QStringList{QStringLiteral("--workspace"), m_workspace->path()} + options() +
                          QStringList{QStringLiteral("--"), QStringLiteral("/bin/sleep"), QStringLiteral("600")});
    launcher.start();
    QVERIFY(launcher.waitForStarted());
    const qint64 pid = launcher.processId();
    QTRY_VERIFY_WITH_TIMEOUT(!containersOwnedBy(pid).isEmpty(), 60000);
    ::kill(static_cast<pid_t>(pid), SIGTERM);
    QVERIFY(launcher.waitForFinished(60000));
    QCOMPARE(launcher.exitStatus(), QProcess::NormalExit);
    QCOMPARE(launcher.exitCode(), exitForSignal(SIGTERM));
    QVERIFY(containersOwnedBy(pid).isEmpty());
}

void TestContainerBackend::sigkillOfLauncherRemovesContainer()
{
    QProcess launcher;
    launcher.setProgram(sandboxBinary());
    launcher.setArguments(QStringList{QStringLiteral("--workspace"), m_workspace->path()} + options() +
                          QStringList{QStringLiteral("--"), QStringLiteral("/bin/sleep"), QStringLiteral("600")});
    launcher.start();
    QVERIFY(launcher.waitForStarted());
    const qint64 pid = launcher.processId();
    QTRY_VERIFY_WITH_TIMEOUT(!containersOwnedBy(pid).isEmpty(), 60000);
    launcher.kill();
    QVERIFY(launcher.waitForFinished(60000));
    // The run client gets SIGTERM when its launcher dies and passes it on; whatever still remains, the next
    // launcher's sweep removes, since its owner is gone.
    const RunOutcome next = m_workspace->run({QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("exit 0")}, options());
    QVERIFY2(next.exited() && next.exitCode == 0, qPrintable(next.describe()));
    QTRY_VERIFY_WITH_TIMEOUT(containersOwnedBy(pid).isEmpty(), 60000);
}

QTEST_GUILESS_MAIN(TestContainerBackend)
#include "tst_container_backend.moc"
