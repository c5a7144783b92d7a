// A control plane started with a low soft limit of open files (1,024 under systemd) raises it to the hard
// limit (app/engine/OpenFileLimit), so that hundreds of tasks' descriptors fit.
#include "app/engine/OpenFileLimit.h"

#include <QtTest>
#include <sys/resource.h>

using namespace warren::control;

class TestOpenFileLimit : public QObject {
    Q_OBJECT

private slots:
    void theSoftLimitIsRaisedToTheHardOne() {
        rlimit limit{};
        QCOMPARE(::getrlimit(RLIMIT_NOFILE, &limit), 0);
        if (limit.rlim_max <= 256)
            QSKIP("the hard limit of open files here is 256 or less: nothing to raise");
        limit.rlim_cur = 256; // as a service might start
        QCOMPARE(::setrlimit(RLIMIT_NOFILE, &limit), 0);
        auto raised = raiseOpenFileLimit();
        QVERIFY2(raised, raised ? "" : raised.error().message.c_str());
        QCOMPARE(*raised, static_cast<std::uint64_t>(limit.rlim_max));
        rlimit now{};
        QCOMPARE(::getrlimit(RLIMIT_NOFILE, &now), 0);
        QCOMPARE(now.rlim_cur, limit.rlim_max);
    }
};

QTEST_GUILESS_MAIN(TestOpenFileLimit)
#include "tst_open_file_limit.moc"
