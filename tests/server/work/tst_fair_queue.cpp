// FairQueue: which waiting job a free worker takes. Each row is a sequence of pushes, takes and finishes;
// the jobs started must be the ones the row names, in order: one owner never holds every worker, the
// owners are served in turn, and a finished job frees its worker for the next in turn.

#include "server/work/FairQueue.h"

#include <QTest>

using warren::server::FairQueue;

namespace {

// "push OWNER JOB", "take" (the started job's id is appended to the trace, or "-" for none), "done OWNER".
using Steps = QStringList;

QString run(FairQueue& queue, const Steps& steps) {
    QStringList trace;
    for (const QString& step : steps) {
        const QStringList words = step.split(' ');
        if (words[0] == "push") {
            queue.push(words[1].toStdString(), words[2].toULongLong());
        } else if (words[0] == "take") {
            const auto started = queue.take();
            trace << (started ? QString::fromStdString(started->owner) + QString::number(started->job) : "-");
        } else if (words[0] == "done") {
            queue.finished(words[1].toStdString());
        }
    }
    return trace.join(' ');
}

} // namespace

class FairQueueTest : public QObject {
    Q_OBJECT
private slots:
    void startsTheRightJobs_data();
    void startsTheRightJobs();
    void countsWhatRunsAndWaits();
};

void FairQueueTest::startsTheRightJobs_data() {
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("perOwner");
    QTest::addColumn<Steps>("steps");
    QTest::addColumn<QString>("trace");
    QTest::newRow("one_owner_takes_only_its_share")
        << 4 << 2 << Steps{"push a 1", "push a 2", "push a 3", "push a 4", "take", "take", "take"} << "a1 a2 -";
    QTest::newRow("another_owner_gets_a_free_worker_behind_a_flood")
        << 4 << 2
        << Steps{"push a 1", "push a 2", "push a 3", "push a 4", "take", "take", "push b 5", "take", "take"}
        << "a1 a2 b5 -";
    QTest::newRow("owners_are_served_in_turn")
        << 1 << 1
        << Steps{"push a 1", "push a 2", "push b 3", "push c 4", "take", "done a", "take", "done b", "take",
                 "done c", "take"}
        << "a1 b3 c4 a2";
    QTest::newRow("no_worker_free_no_start")
        << 2 << 2 << Steps{"push a 1", "push b 2", "push c 3", "take", "take", "take"} << "a1 b2 -";
    QTest::newRow("a_finished_job_frees_its_worker")
        << 2 << 1 << Steps{"push a 1", "push a 2", "take", "take", "done a", "take"} << "a1 - a2";
    QTest::newRow("share_clamped_below_every_worker_never_zero")
        << 3 << 0 << Steps{"push a 1", "push a 2", "take", "take"} << "a1 -";
    QTest::newRow("share_clamped_to_the_workers")
        << 2 << 9 << Steps{"push a 1", "push a 2", "push a 3", "take", "take", "take"} << "a1 a2 -";
    QTest::newRow("an_unknown_finish_changes_nothing")
        << 1 << 1 << Steps{"done z", "push a 1", "take", "done z", "push b 2", "take"} << "a1 -";
}

void FairQueueTest::startsTheRightJobs() {
    QFETCH(int, workers);
    QFETCH(int, perOwner);
    QFETCH(Steps, steps);
    QFETCH(QString, trace);
    FairQueue queue(static_cast<std::size_t>(workers), static_cast<std::size_t>(perOwner));
    QCOMPARE(run(queue, steps), trace);
}

void FairQueueTest::countsWhatRunsAndWaits() {
    FairQueue queue(4, 2);
    for (std::uint64_t job = 1; job <= 5; ++job)
        queue.push("a", job);
    while (queue.take()) {
    }
    QCOMPARE(queue.running(), std::size_t{2});
    QCOMPARE(queue.waiting(), std::size_t{3});
    queue.finished("a");
    queue.finished("a");
    QCOMPARE(queue.running(), std::size_t{0});
    QCOMPARE(queue.waiting(), std::size_t{3});
}

QTEST_APPLESS_MAIN(FairQueueTest)
#include "tst_fair_queue.moc"
