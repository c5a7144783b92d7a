// `warren cancel` of a task another process runs (app/tasks/CancelRequests): one watcher for every running
// task, so a control plane with hundreds of tasks holds one inotify instance, not one per task (the kernel's
// per-user limit is 128 by default); each request reaches its own task's runner alone, a request made before
// the watch began is heard, and a task's last runner forgetting it leaves its next runner's watch in place.
#include "app/tasks/CancelRequests.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

using namespace warren::control;

namespace {

// The inotify instances this process holds (each is an fd on anon_inode:inotify).
int inotifyInstances() {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code error;
        if (std::filesystem::read_symlink(entry.path(), error).string() == "anon_inode:inotify")
            ++count;
    }
    return count;
}

} // namespace

class TestCancelRequests : public QObject {
    Q_OBJECT

private slots:
    void manyTasksOneWatcherEachRequestToItsTask() {
        QTemporaryDir root;
        const DataDir data{root.path().toStdString()};
        const int before = inotifyInstances();
        CancelRequests requests(data);
        constexpr std::size_t kTasks = 300; // past the default limit of 128 instances
        std::vector<int> heard(kTasks, 0);
        for (std::size_t i = 0; i < kTasks; ++i) {
            const std::string id = "t-" + std::to_string(i);
            QVERIFY(QDir().mkpath(QString::fromStdString(data.taskDir(id))));
            requests.watch(id, &heard, [&heard, i] { ++heard[i]; });
        }
        QVERIFY(inotifyInstances() - before <= 1);

        QVERIFY(CancelRequests::request(data, "t-150", "stopped from the terminal"));
        QTRY_VERIFY(heard[150] >= 1);
        QCoreApplication::processEvents();
        for (std::size_t i = 0; i < kTasks; ++i)
            if (i != 150)
                QCOMPARE(heard[i], 0);
    }

    void aRequestBeforeTheWatchIsHeard() {
        QTemporaryDir root;
        const DataDir data{root.path().toStdString()};
        QVERIFY(QDir().mkpath(QString::fromStdString(data.taskDir("t-early"))));
        QVERIFY(CancelRequests::request(data, "t-early", "asked while the sandbox started"));
        CancelRequests requests(data);
        bool heard = false;
        requests.watch("t-early", this, [&heard] { heard = true; });
        QTRY_VERIFY(heard);
    }

    void theLastRunnerForgettingLeavesTheNextOnesWatch() {
        QTemporaryDir root;
        const DataDir data{root.path().toStdString()};
        QVERIFY(QDir().mkpath(QString::fromStdString(data.taskDir("t-1"))));
        CancelRequests requests(data);
        int last = 0, next = 0;
        requests.watch("t-1", &last, [&last] { ++last; });
        requests.watch("t-1", &next, [&next] { ++next; }); // the task resumed: its next runner
        requests.forget("t-1", &last);                     // the last runner is deleted afterwards
        CancelRequests::clear(data, "t-1");
        QVERIFY(CancelRequests::request(data, "t-1", "cancel"));
        QTRY_VERIFY(next >= 1);
        QCOMPARE(last, 0);
    }
};

QTEST_GUILESS_MAIN(TestCancelRequests)
#include "tst_cancel_requests.moc"
