// DiskWork with real threads: while one user's jobs hold their share of the workers (blocked until the
// test lets them go), another user's job starts, runs and is done; every done runs on the event loop's
// thread; a job no one wants any more when its turn comes is never started; destroying the pool waits for
// what runs.

#include "server/work/DiskWork.h"

#include <QSemaphore>
#include <QTest>
#include <QThread>
#include <atomic>
#include <vector>

using warren::server::DiskWork;

class DiskWorkTest : public QObject {
    Q_OBJECT
private slots:
    void anotherUserIsServedWhileOneHoldsItsShare();
    void aJobNoOneWantsIsNotStarted();
    void destructionWaitsForRunningWork();
};

void DiskWorkTest::anotherUserIsServedWhileOneHoldsItsShare() {
    DiskWork work(3, 2);
    QSemaphore release;
    std::atomic<int> started{0};
    std::vector<int> doneOrder; // 0..3: the flood's jobs, 9: the other user's
    bool doneOnLoop = true;
    for (int i = 0; i < 4; ++i)
        work.run<int>(
            "user-flood",
            [&release, &started, i] {
                ++started;
                release.acquire();
                return i;
            },
            [&](int which) {
                doneOnLoop = doneOnLoop && QThread::currentThread() == thread();
                doneOrder.push_back(which);
            });
    QTRY_COMPARE(started.load(), 2); // its share: two of the three workers, however many it sent
    QCOMPARE(work.waiting(), std::size_t{2});
    work.run<int>("user-other", [] { return 9; }, [&](int which) { doneOrder.push_back(which); });
    QTRY_COMPARE(doneOrder, std::vector<int>{9}); // served while the flood is still blocked
    QCOMPARE(started.load(), 2);
    release.release(4);
    QTRY_COMPARE(doneOrder.size(), std::size_t{5});
    QVERIFY(doneOnLoop);
    QCOMPARE(work.running(), std::size_t{0});
}

void DiskWorkTest::aJobNoOneWantsIsNotStarted() {
    DiskWork work(1, 1);
    QSemaphore release;
    bool firstDone = false, unwantedRan = false, unwantedDone = false, wanted = true;
    work.run<int>("user-a", [&release] { release.acquire(); return 1; }, [&](int) { firstDone = true; });
    work.run<int>(
        "user-b", [&unwantedRan] { unwantedRan = true; return 2; }, [&](int) { unwantedDone = true; },
        [&wanted] { return wanted; });
    QCOMPARE(work.waiting(), std::size_t{1});
    wanted = false; // its client went away while it waited
    release.release();
    QTRY_VERIFY(firstDone);
    QTRY_COMPARE(work.waiting(), std::size_t{0});
    QCOMPARE(work.running(), std::size_t{0});
    QVERIFY(!unwantedRan);
    QVERIFY(!unwantedDone);
}

void DiskWorkTest::destructionWaitsForRunningWork() {
    std::atomic<bool> finished{false};
    QSemaphore started;
    {
        DiskWork work(1, 1);
        work.run<int>(
            "user-a",
            [&] {
                started.release();
                QThread::msleep(50); // work that is still going when the pool goes
                finished = true;
                return 0;
            },
            [](int) { QFAIL("done runs after the pool is gone"); });
        started.acquire();
    }
    QVERIFY(finished.load());
}

QTEST_MAIN(DiskWorkTest)
#include "tst_disk_work.moc"
