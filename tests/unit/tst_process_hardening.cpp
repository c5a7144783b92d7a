// hardenProcess() in forked children: no core dumps, not dumpable, and for real: another process of the
// same (unprivileged) user cannot read the hardened process's environment through /proc, while it can read
// an unhardened one's. Run as root, both processes first drop to an unprivileged uid, since CAP_SYS_PTRACE
// would read anything.

#include "app/secrets/ProcessHardening.h"

#include <QtTest>
#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren;
using namespace warren::control;

namespace {

constexpr uid_t kNobody = 65534;

// Root in the test: become an unprivileged user (and stay dumpable: a uid change clears the flag itself).
bool dropRootIfRoot() {
    if (::geteuid() != 0)
        return true;
    return ::setresgid(kNobody, kNobody, kNobody) == 0 && ::setresuid(kNobody, kNobody, kNobody) == 0 &&
           ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0;
}

int waitForExit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

class TestProcessHardening : public QObject {
    Q_OBJECT

private slots:
    void noCoreDumpsAndNotDumpable() {
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            if (!hardenProcess())
                ::_exit(1);
            rlimit core{};
            if (::getrlimit(RLIMIT_CORE, &core) != 0 || core.rlim_cur != 0 || core.rlim_max != 0)
                ::_exit(2);
            if (::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
                ::_exit(3);
            // /proc/self now belongs to root: the kernel's sign that the process is not dumpable.
            struct stat status {};
            if (::stat("/proc/self/environ", &status) != 0 || status.st_uid != 0)
                ::_exit(4);
            ::_exit(0);
        }
        QCOMPARE(waitForExit(child), 0);
    }

    void sameUserCannotReadTheEnvironment_data() {
        QTest::addColumn<bool>("hardened");
        QTest::addColumn<int>("expectedErrno");
        QTest::newRow("hardened") << true << EACCES;
        QTest::newRow("not hardened (control)") << false << 0;
    }

    void sameUserCannotReadTheEnvironment() {
        QFETCH(bool, hardened);
        QFETCH(int, expectedErrno);
        int ready[2];
        int hold[2];
        QVERIFY(::pipe(ready) == 0 && ::pipe(hold) == 0);
        const pid_t target = ::fork();
        QVERIFY(target >= 0);
        if (target == 0) {
            ::close(ready[0]);
            ::close(hold[1]);
            if (!dropRootIfRoot() || (hardened && !hardenProcess()))
                ::_exit(1);
            if (::write(ready[1], "r", 1) != 1)
                ::_exit(1);
            char byte = 0;
            while (::read(hold[0], &byte, 1) < 0 && errno == EINTR) { // until the test closes its end
            }
            ::_exit(0);
        }
        ::close(ready[1]);
        ::close(hold[0]);
        char byte = 0;
        QCOMPARE(::read(ready[0], &byte, 1), ssize_t(1));
        ::close(ready[0]);

        const std::string environPath = "/proc/" + std::to_string(target) + "/environ";
        const pid_t reader = ::fork();
        QVERIFY(reader >= 0);
        if (reader == 0) {
            if (!dropRootIfRoot())
                ::_exit(255);
            const int fd = ::open(environPath.c_str(), O_RDONLY | O_CLOEXEC);
            ::_exit(fd >= 0 ? 0 : (errno > 0 && errno < 255 ? errno : 254));
        }
        const int readerResult = waitForExit(reader);
        ::close(hold[1]);
        QCOMPARE(waitForExit(target), 0);
        QCOMPARE(readerResult, expectedErrno);
    }
};

QTEST_GUILESS_MAIN(TestProcessHardening)
#include "tst_process_hardening.moc"
