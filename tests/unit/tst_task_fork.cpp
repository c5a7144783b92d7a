// What a fork takes of the original task (app/control/TaskFork): the events before the latest start of the
// step it continues from, under the new id with their seqs, then a note of where it came from; the checkpoint
// with only its task id changed.

#include "app/control/TaskFork.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace warren;
using namespace warren::control;

namespace {

EventRow row(std::uint64_t seq, const char* type, std::uint64_t step) {
    return EventRow{
        "t-old", seq, "2026-01-01T00:00:00.000Z", type, step, "", "{\"seq\":" + std::to_string(seq) + "}"};
}

// "task_started", then steps 1-3, then step 2 started again (after a rewind of the conversation).
std::vector<EventRow> history() {
    return {row(1, "task_started", 0), row(2, "step_started", 1), row(3, "tool_call", 1),
            row(4, "step_started", 2), row(5, "tool_call", 2),    row(6, "step_started", 3),
            row(7, "step_started", 2), row(8, "tool_call", 2),    row(9, "task_finished", 2)};
}

} // namespace

class TaskForkTest : public QObject {
    Q_OBJECT
private slots:
    void eventsBeforeStep_data() {
        QTest::addColumn<quint64>("step");
        QTest::addColumn<quint64>("kept"); // the events kept: seq 1 to this
        QTest::newRow("before step 1: the task's start only") << quint64(1) << quint64(1);
        QTest::newRow("before step 3") << quint64(3) << quint64(5);
        QTest::newRow("step 2 ran twice: before its latest start") << quint64(2) << quint64(6);
        QTest::newRow("a step that never started: everything") << quint64(9) << quint64(9);
    }
    void eventsBeforeStep() {
        QFETCH(quint64, step);
        QFETCH(quint64, kept);
        const auto rows = control::eventsBeforeStep(history(), step, "t-new");
        QCOMPARE(rows.size(), std::size_t(kept));
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].seq, i + 1);
            QCOMPARE(rows[i].taskId, std::string("t-new"));
            QCOMPARE(rows[i].body, history()[i].body);
        }
    }

    // The note that ends the copied past follows its last seq, at the step before the one it continues from.
    void forkedNote_data() {
        QTest::addColumn<quint64>("step");
        QTest::addColumn<quint64>("seq");
        QTest::newRow("after the past") << quint64(3) << quint64(6);
        QTest::newRow("before step 1: after the start") << quint64(1) << quint64(2);
    }
    void forkedNote() {
        QFETCH(quint64, step);
        QFETCH(quint64, seq);
        const auto past = control::eventsBeforeStep(history(), step, "t-new");
        const EventRow note = control::forkedNote(past, "t-old", step, "t-new", 1764892800000);
        QCOMPARE(note.taskId, std::string("t-new"));
        QCOMPARE(note.seq, seq);
        QCOMPARE(note.step, step - 1);
        QCOMPARE(note.type, std::string("log"));
        QCOMPARE(note.ts, std::string("2025-12-05T00:00:00.000Z"));
        const auto body = nlohmann::json::parse(note.body);
        QCOMPARE(body["seq"].get<std::uint64_t>(), seq);
        QCOMPARE(body["data"]["message"].get<std::string>(),
                 "forked from task t-old before step " + std::to_string(step) + "; t-old and its workspace are as they were");
    }

    void checkpointForTask() {
        const nlohmann::json checkpoint = {
            {"format", 1}, {"task_id", "t-old"}, {"step", 3}, {"messages", {"m"}}};
        auto forked = control::checkpointForTask(checkpoint.dump(), "t-new");
        QVERIFY(forked.ok());
        nlohmann::json expected = checkpoint;
        expected["task_id"] = "t-new";
        QVERIFY(nlohmann::json::parse(*forked) == expected);
        QVERIFY(!control::checkpointForTask("not json", "t-new").ok());
        QVERIFY(!control::checkpointForTask("{\"step\":3}", "t-new").ok());
    }
};

QTEST_GUILESS_MAIN(TaskForkTest)
#include "tst_task_fork.moc"
