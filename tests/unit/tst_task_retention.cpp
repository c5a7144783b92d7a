// When a finished task's parts are due for removal (retentionDue), and what a refusal says once they went.
// Pure.

#include "app/tasks/TaskRetention.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;

namespace {

constexpr protocol::UnixMillis kDay = 86'400'000;

TaskRecord finished(TaskStatus status, const std::string& at) {
    TaskRecord task;
    task.id = "t-000000000001";
    task.status = status;
    task.finishedAt = at;
    return task;
}

} // namespace

class TestTaskRetention : public QObject {
    Q_OBJECT
private slots:
    void dueOnlyWhenFinalAndOldEnough();
    void aRefusalSaysWhenAndWhatRemains();
};

void TestTaskRetention::dueOnlyWhenFinalAndOldEnough() {
    const auto end = protocol::parseTimestamp("2026-11-01T12:00:00.000Z");
    QVERIFY(end);
    const TaskRecord done = finished(TaskStatus::Succeeded, "2026-11-01T12:00:00.000Z");
    QVERIFY(retentionDue(done, 30, *end + 30 * kDay));
    QVERIFY(!retentionDue(done, 30, *end + 30 * kDay - 1)); // a millisecond early
    QVERIFY(!retentionDue(done, 0, *end + 3650 * kDay));    // 0: kept for ever
    QVERIFY(!retentionDue(done, kMaxRetentionDays + 1, *end + 100000 * kDay));
    for (const TaskStatus status : allTaskStatuses())
        QCOMPARE(retentionDue(finished(status, done.finishedAt), 1, *end + 2 * kDay), isFinal(status));
    TaskRecord removed = done;
    removed.removedAt = "2026-12-01T00:00:00.000Z";
    QVERIFY(!retentionDue(removed, 1, *end + 60 * kDay)); // once
    for (const char* unreadable : {"", "yesterday", "2026-13-01T00:00:00.000Z"})
        QVERIFY2(!retentionDue(finished(TaskStatus::Failed, unreadable), 1, *end + 60 * kDay), unreadable);
    // A finish in the future (a clock set wrong) is not due either.
    QVERIFY(!retentionDue(finished(TaskStatus::Failed, "2027-06-01T00:00:00.000Z"), 1, *end));
}

void TestTaskRetention::aRefusalSaysWhenAndWhatRemains() {
    TaskRecord task = finished(TaskStatus::Succeeded, "2026-11-01T12:00:00.000Z");
    QVERIFY(checkPartsKept(task, "be continued").ok());
    task.removedAt = "2026-12-01T03:04:05.678Z";
    const auto refused = checkPartsKept(task, "be continued");
    QVERIFY(!refused);
    const std::string& message = refused.error().message;
    QVERIFY2(message.find("t-000000000001 cannot be continued") != std::string::npos, message.c_str());
    QVERIFY2(message.find("removed on 2026-12-01,") != std::string::npos, message.c_str());
    QVERIFY2(message.find("record and events remain") != std::string::npos, message.c_str());
}

QTEST_GUILESS_MAIN(TestTaskRetention)
#include "tst_task_retention.moc"
