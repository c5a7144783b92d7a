// openChildPidfd: the sandbox's inner process is waited on and killed through a pidfd only while it is bwrap's
// own child. A number bwrap reported may by then belong to another process (pid_max can be 32768 and a busy
// machine wraps it in minutes); that one must never be waited on, nor sent SIGKILL.
#include "sandbox/bwrap/Launcher.h"

#include <QtTest>
#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren::sandbox;

namespace {

// A child that waits to be killed, named to trip a naive reader of /proc/PID/stat.
pid_t startChild() {
    const pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_NAME, "a) 9 (b", 0, 0, 0);
        for (;;)
            pause();
    }
    return pid;
}

} // namespace

class TestChildPidfd : public QObject {
    Q_OBJECT

private slots:
    void onlyTheParentsOwnChild() {
        const pid_t child = startChild();
        QVERIFY(child > 0);
        QTRY_COMPARE(parentOf(child), getpid()); // also once its name is "a) 9 (b"
        const int fd = openChildPidfd(child, getpid());
        QVERIFY(fd >= 0);
        ::close(fd);
        // Another parent: the number is not the process meant.
        QCOMPARE(openChildPidfd(child, getppid()), -1);
        QCOMPARE(openChildPidfd(getpid(), getpid()), -1);
        ::kill(child, SIGKILL);
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        // Gone: nothing to open, and no parent to read.
        QCOMPARE(openChildPidfd(child, getpid()), -1);
        QCOMPARE(parentOf(child), -1);
    }
};

QTEST_APPLESS_MAIN(TestChildPidfd)
#include "tst_child_pidfd.moc"
