// ProcessSeal: which stop signals the agent takes for its control plane's (isControlPlaneStop), and that
// sealProcess() leaves the process undumpable with no core file, so that a process of the same uid, as every
// tool is, cannot open its /proc descriptors (checked for real in a child).

#include "agent_core/process/ProcessSeal.h"

#include <QtTest>
#include <csignal>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <utility>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren::agent;

class TestProcessSeal : public QObject {
    Q_OBJECT

private slots:
    void controlPlaneStop_data();
    void controlPlaneStop();
    void sealedProcessKeepsItsDescriptorsFromItsChildren();
};

// clang-format off
void TestProcessSeal::controlPlaneStop_data() {
    QTest::addColumn<int>("code");
    QTest::addColumn<int>("pid");
    QTest::addColumn<int>("launcher");
    QTest::addColumn<bool>("taken");

    QTest::newRow("the launcher, outside the pid namespace (pid 0)") << int(SI_USER) << 0 << 0 << true;
    QTest::newRow("the process that started the agent, no sandbox") << int(SI_USER) << 4242 << 4242 << true;
    QTest::newRow("a terminal's interrupt") << int(SI_KERNEL) << 0 << 0 << true;
    QTest::newRow("a tool's kill, in the namespace") << int(SI_USER) << 17 << 0 << false;
    QTest::newRow("a tool's kill, beside a launcher") << int(SI_USER) << 17 << 4242 << false;
    QTest::newRow("a tool's tgkill") << int(SI_TKILL) << 17 << 0 << false;
    QTest::newRow("a tool's tgkill posing as pid 0") << int(SI_TKILL) << 0 << 0 << false;
    QTest::newRow("rt_sigqueueinfo posing as the launcher") << int(SI_QUEUE) << 0 << 0 << false;
    QTest::newRow("rt_sigqueueinfo posing as the parent") << int(SI_QUEUE) << 4242 << 4242 << false;
    QTest::newRow("another forgeable code") << int(SI_ASYNCIO) << 0 << 0 << false;
    QTest::newRow("no launcher recorded does not mean pid 0 is it") << int(SI_USER) << 0 << 0 << true;
}
// clang-format on

void TestProcessSeal::controlPlaneStop() {
    QFETCH(int, code);
    QFETCH(int, pid);
    QFETCH(int, launcher);
    QFETCH(bool, taken);
    QCOMPARE(isControlPlaneStop(code, pid, launcher), taken);
}

// A child (the agent) seals itself or not; its own child (a tool) tries to open the agent's channel through
// /proc. Both give up every capability first, as in every sandbox: root's CAP_SYS_PTRACE passes any such
// check. Returns what the agent reported of itself ('y': undumpable, no core) and what the tool got
// ('o': opened, 'r': refused).
std::pair<char, char> attackFromAChild(bool seal) {
    int report[2];
    if (pipe(report) != 0)
        return {0, 0};
    const pid_t agent = fork();
    if (agent == 0) {
        close(report[0]);
        // Both without capabilities, as in every sandbox: a tool whose capabilities were not a subset of the
        // agent's would be refused anyway, sealed or not.
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct none[2]{};
        if (syscall(SYS_capset, &header, none) != 0)
            _exit(3);
        const bool ok = !seal || static_cast<bool>(sealProcess());
        rlimit core{};
        getrlimit(RLIMIT_CORE, &core);
        const char state = ok && prctl(PR_GET_DUMPABLE) == 0 && core.rlim_max == 0 ? 'y' : 'n';
        if (write(report[1], &state, 1) != 1)
            _exit(2);
        // The agent's channel: a pipe of its own (one made by another user, as a test runner's stdout may be,
        // would be refused for its owner alone). The tool reopens its read end, which opens as a write end.
        int channel[2];
        if (pipe(channel) != 0)
            _exit(6);
        const pid_t tool = fork();
        if (tool == 0) {
            const std::string path = "/proc/" + std::to_string(getppid()) + "/fd/" + std::to_string(channel[0]);
            const char opened = open(path.c_str(), O_WRONLY | O_NONBLOCK) >= 0 ? 'o' : 'r';
            _exit(write(report[1], &opened, 1) == 1 ? 0 : 4);
        }
        int status = 0;
        waitpid(tool, &status, 0);
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 5);
    }
    close(report[1]);
    char state = 0, opened = 0;
    if (read(report[0], &state, 1) != 1 || read(report[0], &opened, 1) != 1)
        state = opened = 0;
    close(report[0]);
    int status = 0;
    waitpid(agent, &status, 0);
    return {state, opened};
}

void TestProcessSeal::sealedProcessKeepsItsDescriptorsFromItsChildren() {
    // Unsealed, the attack works: the check below would see it.
    const auto [plainState, plainOpened] = attackFromAChild(false);
    QCOMPARE(plainState, 'n');
    QCOMPARE(plainOpened, 'o');
    const auto [state, opened] = attackFromAChild(true);
    QCOMPARE(state, 'y');
    QCOMPARE(opened, 'r');
}

QTEST_GUILESS_MAIN(TestProcessSeal)
#include "tst_process_seal.moc"
