// The seccomp deny list and the namespace setup, attacked for real: each row makes the forbidden call
// inside warren-sandbox and checks that the kernel refused it (or killed the caller, for the
// non-native system call entry points).

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <string>
#include <vector>

using namespace warren::test;

class TestSandboxSyscalls : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void deniedCall_data();
    void deniedCall();
    void nonNativeSyscallKilled_data();
    void nonNativeSyscallKilled();
    void tiocstiIntoControllingTerminal();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxSyscalls::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSandboxSyscalls::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
}

void TestSandboxSyscalls::deniedCall_data()
{
    QTest::addColumn<QStringList>("probe");
    QTest::addColumn<QStringList>("sandboxOptions");

    const QStringList none;
    const QStringList loopback{QStringLiteral("--network"), QStringLiteral("loopback")};
    // Reading or writing another process's memory: the classic way out of any process sandbox.
    QTest::newRow("ptrace attach to own child") << QStringList{"ptrace-attach"} << none;
    QTest::newRow("ptrace traceme") << QStringList{"ptrace-traceme"} << none;
    QTest::newRow("process_vm_readv of own child") << QStringList{"process_vm_readv"} << none;
    // A nested user namespace hands out a full capability set and a large new kernel attack surface.
    QTest::newRow("unshare user namespace") << QStringList{"userns"} << none;
    QTest::newRow("unshare user namespace, loopback network") << QStringList{"userns"} << loopback;
    QTest::newRow("raw clone with CLONE_NEWUSER") << QStringList{"clone-newuser"} << none;
    QTest::newRow("clone3 with CLONE_NEWUSER") << QStringList{"clone3-newuser"} << none;
    QTest::newRow("mount tmpfs") << QStringList{"mount"} << none;
    QTest::newRow("keyctl join session keyring") << QStringList{"keyctl"} << none;
    QTest::newRow("add_key to process keyring") << QStringList{"add_key"} << none;
    QTest::newRow("bpf map create or program load") << QStringList{"bpf"} << none;
    QTest::newRow("io_uring_setup") << QStringList{"io_uring"} << none;
    QTest::newRow("perf_event_open on self") << QStringList{"perf_event_open"} << none;
    QTest::newRow("userfaultfd") << QStringList{"userfaultfd"} << none;
    QTest::newRow("personality PER_LINUX32") << QStringList{"personality"} << none;
    QTest::newRow("personality READ_IMPLIES_EXEC") << QStringList{"personality", "0x0400000"} << none;
    QTest::newRow("personality ADDR_NO_RANDOMIZE") << QStringList{"personality", "0x0040000"} << none;
    QTest::newRow("name_to_handle_at") << QStringList{"name_to_handle_at"} << none;
    QTest::newRow("netlink socket") << QStringList{"socket-netlink"} << none;
    QTest::newRow("netlink socket, loopback network") << QStringList{"socket-netlink"} << loopback;
    // Socket families beyond unix and IP: kernel attack surface, or a way past the network namespace
    // (AF_VSOCK talks to the hypervisor host, which no namespace isolates).
    QTest::newRow("AF_PACKET socket") << QStringList{"socket", "packet"} << loopback;
    QTest::newRow("AF_VSOCK socket") << QStringList{"socket", "vsock"} << none;
    QTest::newRow("AF_VSOCK socket, loopback network") << QStringList{"socket", "vsock"} << loopback;
    QTest::newRow("AF_ALG socket") << QStringList{"socket", "alg"} << loopback;
    // Without a terminal TIOCSTI fails anyway; the real attack is tiocstiIntoControllingTerminal.
    QTest::newRow("TIOCSTI on stdin") << QStringList{"tiocsti"} << none;
}

void TestSandboxSyscalls::deniedCall()
{
    QFETCH(QStringList, probe);
    QFETCH(QStringList, sandboxOptions);

    const RunOutcome outcome = m_workspace->probe(probe, sandboxOptions);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
}

void TestSandboxSyscalls::nonNativeSyscallKilled_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<bool>("needsKernelSupport");

    // The i386 entry point numbers system calls differently: a filter written for x86_64 numbers does
    // not apply there, so the only safe answer is to kill the caller.
    QTest::newRow("i386 int 0x80 getpid") << QStringLiteral("i386-syscall") << true;
    // The x32 bit reaches the same table on kernels built with x32 support; seccomp sees the call
    // before the kernel decides, so it must be killed whether or not this kernel has x32.
    QTest::newRow("x32 getpid") << QStringLiteral("x32-syscall") << false;
}

void TestSandboxSyscalls::nonNativeSyscallKilled()
{
    QFETCH(QString, action);
    QFETCH(bool, needsKernelSupport);

    if (needsKernelSupport) {
        const RunOutcome onHost = runProgram(probeBinary(), {action});
        if (onHost.verdict() != QLatin1String("ok"))
            QSKIP(qPrintable(QStringLiteral("this kernel cannot run %1 outside the sandbox either (no IA32 "
                                            "emulation): %2").arg(action, onHost.describe())));
    }

    const RunOutcome outcome = m_workspace->probe({action});
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.exitCode == exitForSignal(SIGSYS), qPrintable(outcome.describe()));
}

namespace {

struct PtyRun {
    int exitCode = -1;
    QByteArray terminalOutput; // what the sandboxed command wrote to the terminal
    QByteArray pendingInput;   // bytes waiting in the terminal's input queue after the sandbox exited
    QString error;
};

// Runs warren-sandbox with a fresh pseudo-terminal as its controlling terminal and stdio, so that
// TIOCSTI has a real target. The terminal is raw: an injected byte is readable at once and not echoed.
PtyRun runOnTerminal(const QStringList& arguments)
{
    PtyRun run;
    int master = -1, slave = -1;
    if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
        run.error = QStringLiteral("openpty: %1").arg(QString::fromLocal8Bit(strerror(errno)));
        return run;
    }
    termios mode{};
    tcgetattr(slave, &mode);
    cfmakeraw(&mode);
    tcsetattr(slave, TCSANOW, &mode);

    // Everything the child needs is prepared before fork: it may only make async-signal-safe calls.
    std::vector<std::string> storage{sandboxBinary().toStdString()};
    for (const QString& argument : arguments)
        storage.push_back(argument.toStdString());
    std::vector<char*> argv;
    for (std::string& s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);

    const pid_t child = fork();
    if (child == 0) {
        setsid();
        ioctl(slave, TIOCSCTTY, 0);
        dup2(slave, STDIN_FILENO);
        dup2(slave, STDOUT_FILENO);
        dup2(slave, STDERR_FILENO);
        close(master);
        if (slave > STDERR_FILENO)
            close(slave);
        execv(argv[0], argv.data());
        _exit(127);
    }
    if (child < 0) {
        run.error = QStringLiteral("fork: %1").arg(QString::fromLocal8Bit(strerror(errno)));
        close(master);
        close(slave);
        return run;
    }

    // The output is a line or two, far below the terminal's buffer, so reading after exit is safe.
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

    // This process still holds the slave open, so the master reads what is buffered, then EAGAIN.
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    fcntl(slave, F_SETFL, fcntl(slave, F_GETFL) | O_NONBLOCK);
    char buffer[4096];
    ssize_t n;
    while ((n = read(master, buffer, sizeof buffer)) > 0)
        run.terminalOutput.append(buffer, n);
    while ((n = read(slave, buffer, sizeof buffer)) > 0)
        run.pendingInput.append(buffer, n);
    close(master);
    close(slave);
    return run;
}

} // namespace

// TIOCSTI pushes bytes into the terminal's input queue: once the sandbox exits, the user's shell reads
// them as if typed (CVE-2017-5226 in bubblewrap). The probe tries it with the plain request and with the
// upper 32 bits set, which a careless 64-bit comparison in the filter would let through.
void TestSandboxSyscalls::tiocstiIntoControllingTerminal()
{
    const PtyRun run = runOnTerminal({QStringLiteral("--workspace"), m_workspace->path(), QStringLiteral("--"),
                                      QString::fromLatin1(kProbeInside), QStringLiteral("tiocsti")});
    QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
    const QString described = QStringLiteral("exit %1, terminal: [%2]")
                                  .arg(run.exitCode)
                                  .arg(QString::fromUtf8(run.terminalOutput).trimmed());
    QVERIFY2(run.pendingInput.isEmpty(),
             qPrintable(QStringLiteral("bytes were injected into the terminal: [%1]; %2")
                            .arg(QString::fromLatin1(run.pendingInput.toHex()), described)));
    QVERIFY2(run.exitCode == 1, qPrintable(described));
    QVERIFY2(run.terminalOutput.contains("errno "), qPrintable(described));
}

QTEST_GUILESS_MAIN(TestSandboxSyscalls)
#include "tst_sandbox_syscalls.moc"
