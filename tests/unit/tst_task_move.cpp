// A task moved to another control plane (app/tasks/TaskMove): which tasks may move and what a moved one
// refuses here, its history written and read back strictly (each refusal naming its line or its file), the
// note added after a history, and the move under way kept beside the task (tasks/<id>/move.json).

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/state/Checkpoint.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskMove.h"
#include "app/tasks/TaskSpec.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;
using nlohmann::json;

Q_DECLARE_METATYPE(std::string)

namespace {

constexpr const char* kOldId = "t-000000000001";
constexpr const char* kNewId = "t-0000000000ff";
constexpr protocol::UnixMillis kTs = 1'796'000'000'123; // 2026-11-30T00:53:20.123Z

TaskRecord record(TaskStatus status) {
    TaskRecord task;
    task.id = kOldId;
    task.status = status;
    return task;
}

TaskSpec specOf(protocol::AgentKind agent) {
    TaskSpec spec;
    spec.agent = agent;
    return spec;
}

protocol::Event makeEvent(std::uint64_t seq, const std::string& type, std::uint64_t step, json data,
                          std::optional<std::string> tool = std::nullopt) {
    protocol::Event out;
    out.seq = seq;
    out.ts = kTs + static_cast<protocol::UnixMillis>(seq);
    out.type = type;
    out.step = step;
    out.tool = std::move(tool);
    out.data = std::move(data);
    return out;
}

EventRow rowOf(const protocol::Event& event) {
    return {kOldId,
            event.seq,
            protocol::formatTimestamp(event.ts),
            event.type,
            event.step,
            event.tool.value_or(""),
            protocol::toJson(event).dump()};
}

// A history as an agent leaves one: a step, a call and its result, a log line.
std::vector<EventRow> sampleHistory() {
    protocol::ToolResultData result;
    result.id = "c1";
    result.exitCode = 0;
    result.output = "a.txt\n";
    return {rowOf(makeEvent(1, "step_started", 1, json::object())),
            rowOf(makeEvent(2, "tool_call", 1, protocol::ToolCallData{"c1", {{"command", "ls"}}}.toJson(),
                            "shell")),
            rowOf(makeEvent(3, "tool_result", 1, result.toJson(), "shell")),
            rowOf(makeEvent(4, "log", 1, protocol::LogData{protocol::LogLevel::Info, "x"}.toJson()))};
}

agent::AgentState sampleState() {
    agent::AgentState state;
    state.taskId = kOldId;
    state.prompt = "list the files";
    state.presets = {"safe-mode"};
    state.step = 1;
    state.nextSeq = 5;
    state.recentCallKeys = {"shell:ls"};
    state.counters.steps = 1;
    state.counters.toolCalls = {{"shell", 1}};
    return state;
}

std::string checkpointText() {
    return agent::toJson(sampleState()).dump();
}

// One event's line as movedEventsText writes it.
std::string line(const protocol::Event& event) {
    return protocol::toJson(event).dump() + "\n";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestTaskMove : public QObject {
    Q_OBJECT

private slots:
    void stillTasksWithACheckpointMove();
    void otherStatusesAreRefusedByName_data();
    void otherStatusesAreRefusedByName();
    void onlyWarrensAgentWithItsPartsAndACheckpointMoves();
    void aMovedTaskSaysWhereItGoesOn();
    void theHistoryRoundTrips();
    void anEmptyHistoryAndATrailingNewlineRead();
    void aForgedHistoryIsRefusedNamingItsLine_data();
    void aForgedHistoryIsRefusedNamingItsLine();
    void theNoteFollowsTheHistory();
    void aMoveUnderWayIsKeptBesideTheTask();
    void aMoveUnderWayThatDoesNotReadIsAnError();
    void aMoveUnderWayHoldsTheTask();
};

void TestTaskMove::stillTasksWithACheckpointMove() {
    for (const TaskStatus status :
         {TaskStatus::Paused, TaskStatus::Interrupted, TaskStatus::Waiting, TaskStatus::Sleeping}) {
        const auto movable = checkMovable(record(status), specOf(protocol::AgentKind::Warren), true);
        QVERIFY2(movable.ok(), movable.ok() ? taskStatusName(status) : movable.error().message.c_str());
    }
}

void TestTaskMove::otherStatusesAreRefusedByName_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("named");
    QTest::newRow("queued") << int(TaskStatus::Queued) << "t-000000000001 is queued";
    QTest::newRow("running") << int(TaskStatus::Running) << "t-000000000001 is running";
    QTest::newRow("succeeded") << int(TaskStatus::Succeeded) << "t-000000000001 is succeeded";
    QTest::newRow("failed") << int(TaskStatus::Failed) << "t-000000000001 is failed";
    QTest::newRow("cancelled") << int(TaskStatus::Cancelled) << "t-000000000001 is cancelled";
}

void TestTaskMove::otherStatusesAreRefusedByName() {
    QFETCH(int, status);
    QFETCH(QString, named);
    const auto refused = checkMovable(record(TaskStatus(status)), specOf(protocol::AgentKind::Warren), true);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
    const std::string& message = refused.error().message;
    QVERIFY2(contains(message, named.toStdString()), message.c_str());
    QVERIFY2(contains(message, "only a paused, interrupted, waiting or sleeping task moves"),
             message.c_str());
}

void TestTaskMove::onlyWarrensAgentWithItsPartsAndACheckpointMoves() {
    // A moved task is refused for where it went, before anything else.
    TaskRecord moved = record(TaskStatus::Moved);
    moved.movedTo = "https://h:1";
    moved.movedAs = "t-abc";
    auto refused = checkMovable(moved, specOf(protocol::AgentKind::Warren), true);
    QVERIFY(!refused);
    QVERIFY2(contains(refused.error().message, "cannot move here: it was moved to https://h:1"),
             refused.error().message.c_str());

    // A CLI's session lives in its own files.
    refused = checkMovable(record(TaskStatus::Paused), specOf(protocol::AgentKind::ClaudeCode), true);
    QVERIFY(!refused);
    QVERIFY2(contains(refused.error().message, "runs claude-code"), refused.error().message.c_str());
    QVERIFY2(contains(refused.error().message, "only a task of Warren's agent moves"),
             refused.error().message.c_str());
    refused = checkMovable(record(TaskStatus::Sleeping), specOf(protocol::AgentKind::Codex), true);
    QVERIFY(!refused);
    QVERIFY2(contains(refused.error().message, "runs codex"), refused.error().message.c_str());

    // Its agent never left a checkpoint.
    refused = checkMovable(record(TaskStatus::Interrupted), specOf(protocol::AgentKind::Warren), false);
    QVERIFY(!refused);
    QVERIFY2(contains(refused.error().message, "t-000000000001 cannot move: its agent left no checkpoint"),
             refused.error().message.c_str());

    // Its retention period removed its checkpoints.
    TaskRecord removed = record(TaskStatus::Paused);
    removed.removedAt = "2026-12-01T03:04:05.678Z";
    refused = checkMovable(removed, specOf(protocol::AgentKind::Warren), true);
    QVERIFY(!refused);
    QVERIFY2(contains(refused.error().message, "t-000000000001 cannot move: its checkpoints"),
             refused.error().message.c_str());
    QVERIFY2(contains(refused.error().message, "removed on 2026-12-01"), refused.error().message.c_str());
}

void TestTaskMove::aMovedTaskSaysWhereItGoesOn() {
    for (const TaskStatus status : allTaskStatuses()) {
        if (status == TaskStatus::Moved)
            continue;
        TaskRecord task = record(status);
        task.movedTo = "https://h:1"; // only the status says it moved
        task.movedAs = "t-abc";
        QVERIFY2(checkNotMoved(task, "resume").ok(), taskStatusName(status));
    }

    TaskRecord task = record(TaskStatus::Moved);
    task.movedTo = "https://h:1";
    task.movedAs = "t-abc";
    auto refused = checkNotMoved(task, "resume");
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
    std::string message = refused.error().message;
    QVERIFY2(contains(message, "t-000000000001 cannot resume here"), message.c_str());
    QVERIFY2(contains(message, "moved to https://h:1"), message.c_str());
    QVERIFY2(contains(message, "as t-abc"), message.c_str());
    QVERIFY2(contains(message, "warren show t-abc --remote https://h:1"), message.c_str());

    // A server's task brought home: it goes on in this machine's control plane.
    task.movedTo = "local";
    refused = checkNotMoved(task, "reply");
    QVERIFY(!refused);
    message = refused.error().message;
    QVERIFY2(contains(message, "cannot reply here"), message.c_str());
    QVERIFY2(contains(message, "moved to this machine's control plane (warren show t-abc)"), message.c_str());
    QVERIFY2(!contains(message, "--remote"), message.c_str());
}

void TestTaskMove::theHistoryRoundTrips() {
    const std::vector<EventRow> history = sampleHistory();
    const std::string text = movedEventsText(history);
    QCOMPARE(std::count(text.begin(), text.end(), '\n'), std::ptrdiff_t(history.size()));
    QVERIFY(text.ends_with('\n'));

    const auto read = readMovedHistory(text, checkpointText(), kNewId);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->events.size(), history.size());
    for (std::size_t i = 0; i < history.size(); ++i) {
        const EventRow& was = history[i];
        const EventRow& is = read->events[i];
        QCOMPARE(is.taskId, std::string(kNewId));
        QCOMPARE(is.seq, was.seq);
        QCOMPARE(is.ts, was.ts);
        QCOMPARE(is.type, was.type);
        QCOMPARE(is.step, was.step);
        QCOMPARE(is.tool, was.tool);
        QCOMPARE(json::parse(is.body), json::parse(was.body));
    }
    QCOMPARE(read->events[1].tool, std::string("shell"));
    QCOMPARE(read->events[3].tool, std::string());

    // The checkpoint is made the new task's, the rest as the agent kept it.
    QVERIFY(read->checkpoint.ends_with('\n'));
    const auto state = agent::agentStateFromJson(json::parse(read->checkpoint));
    QVERIFY2(state.ok(), state.ok() ? "" : state.error().message.c_str());
    agent::AgentState expected = sampleState();
    expected.taskId = kNewId;
    QVERIFY(*state == expected);
}

void TestTaskMove::anEmptyHistoryAndATrailingNewlineRead() {
    auto read = readMovedHistory("", checkpointText(), kNewId);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read->events.empty());
    QCOMPARE(json::parse(read->checkpoint)["task_id"], json(kNewId));

    // The last line with or without its newline.
    std::string text = movedEventsText(sampleHistory());
    read = readMovedHistory(text, checkpointText(), kNewId);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->events.size(), std::size_t(4));
    text.pop_back();
    read = readMovedHistory(text, checkpointText(), kNewId);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->events.size(), std::size_t(4));
    QCOMPARE(read->events.back().seq, std::uint64_t(4));
}

void TestTaskMove::aForgedHistoryIsRefusedNamingItsLine_data() {
    QTest::addColumn<std::string>("events");
    QTest::addColumn<std::string>("checkpoint");
    QTest::addColumn<QStringList>("named");
    const std::string first = line(makeEvent(1, "step_started", 1, json::object()));
    const std::string good = checkpointText();

    QTest::newRow("a line not JSON") << first + "{\"seq\": 2,\n"
                                     << good << QStringList{"events.jsonl line 2: not JSON"};
    QTest::newRow("an empty line between")
        << first + "\n" + line(makeEvent(2, "step_started", 2, json::object())) << good
        << QStringList{"events.jsonl line 2: not JSON"};
    QTest::newRow("a gap") << first + line(makeEvent(3, "step_started", 2, json::object())) << good
                           << QStringList{"events.jsonl line 2: seq 3, expected 2", "without a gap"};
    QTest::newRow("a repeat") << first + line(makeEvent(1, "step_started", 1, json::object())) << good
                              << QStringList{"events.jsonl line 2: seq 1, expected 2"};
    QTest::newRow("not from 1") << line(makeEvent(2, "step_started", 1, json::object())) << good
                                << QStringList{"events.jsonl line 1: seq 2, expected 1"};
    QTest::newRow("an unknown type") << first + line(makeEvent(2, "dreamt", 1, json::object())) << good
                                     << QStringList{"events.jsonl line 2: not an event", "dreamt"};
    QTest::newRow("an unknown envelope key")
        << first + R"({"seq":2,"ts":"2026-11-30T00:00:00.000Z","type":"log","step":1,"data":{},"who":"me"})"
        << good << QStringList{"events.jsonl line 2: not an event", "who"};
    QTest::newRow("a tool_call without its fields")
        << first + line(makeEvent(2, "tool_call", 1, json::object(), "shell")) << good
        << QStringList{"events.jsonl line 2: tool_call's data"};
    QTest::newRow("a log of another level")
        << first + line(makeEvent(2, "log", 1, {{"level", "loud"}, {"message", "x"}})) << good
        << QStringList{"events.jsonl line 2: log's data"};
    QTest::newRow("a checkpoint not JSON")
        << first << std::string("{\"task_id\": ") << QStringList{"checkpoint.json: not JSON"};
    QTest::newRow("a checkpoint not the agent's")
        << first << std::string("{}") << QStringList{"checkpoint.json: not the agent's checkpoint"};
    json extra = agent::toJson(sampleState());
    extra["mine"] = true;
    QTest::newRow("a checkpoint with a key of its own")
        << first << extra.dump() << QStringList{"checkpoint.json: not the agent's checkpoint", "mine"};
}

void TestTaskMove::aForgedHistoryIsRefusedNamingItsLine() {
    QFETCH(std::string, events);
    QFETCH(std::string, checkpoint);
    QFETCH(QStringList, named);
    const auto read = readMovedHistory(events, checkpoint, kNewId);
    QVERIFY(!read);
    QCOMPARE(read.error().code, ErrorCode::InvalidArgument);
    const std::string& message = read.error().message;
    for (const QString& part : named)
        QVERIFY2(contains(message, part.toStdString()), message.c_str());
}

void TestTaskMove::theNoteFollowsTheHistory() {
    const protocol::UnixMillis at = kTs + 60'000;
    const EventRow first = historyNote({}, kNewId, 0, "moved here from task t-000000000001", at);
    QCOMPARE(first.seq, std::uint64_t(1));
    QCOMPARE(first.taskId, std::string(kNewId));
    QCOMPARE(first.type, std::string("log"));
    QCOMPARE(first.step, std::uint64_t(0));
    QCOMPARE(first.tool, std::string());
    QCOMPARE(first.ts, protocol::formatTimestamp(at));

    const std::vector<EventRow> history = sampleHistory();
    const EventRow note = historyNote(history, kNewId, 7, "moved to https://h:1 as t-abc", at);
    QCOMPARE(note.seq, std::uint64_t(5));
    QCOMPARE(note.type, std::string("log"));
    QCOMPARE(note.step, std::uint64_t(7));
    const auto body = protocol::eventFromJson(json::parse(note.body));
    QVERIFY2(body.ok(), body.ok() ? "" : body.error().message.c_str());
    QCOMPARE(body->seq, std::uint64_t(5));
    QCOMPARE(body->ts, at);
    QCOMPARE(body->type, std::string("log"));
    QCOMPARE(body->step, std::uint64_t(7));
    QCOMPARE(body->data["message"], json("moved to https://h:1 as t-abc"));
    const auto data = protocol::LogData::fromJson(body->data);
    QVERIFY2(data.ok(), data.ok() ? "" : data.error().message.c_str());
    QVERIFY(data->level == protocol::LogLevel::Info);

    // A history with its note still reads as one (moved again).
    std::vector<EventRow> noted = history;
    noted.push_back(note);
    const auto read = readMovedHistory(movedEventsText(noted), checkpointText(), kOldId);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->events.size(), std::size_t(5));
    QCOMPARE(read->events.back().seq, std::uint64_t(5));
}

void TestTaskMove::aMoveUnderWayIsKeptBesideTheTask() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const DataDir data{dir.path().toStdString()};

    // Nothing kept, not even the task's directory.
    auto none = keptMove(data, kOldId);
    QVERIFY2(none.ok(), none.ok() ? "" : none.error().message.c_str());
    QVERIFY(!none->has_value());

    const MoveUnderWay move{"https://h:1", "u-workspace", "u-history", "key-1",
                            json{{"files", {{{"path", "a.txt"}, {"bytes", 3}}}}}};
    QVERIFY(keepMove(data, kOldId, move));
    QVERIFY(QFile::exists(QString::fromStdString(data.taskFile(kOldId, "move.json"))));
    auto kept = keptMove(data, kOldId);
    QVERIFY2(kept.ok(), kept.ok() ? "" : kept.error().message.c_str());
    QVERIFY(kept->has_value());
    QVERIFY(**kept == move);
    // Another task's is its own.
    auto other = keptMove(data, "t-000000000002");
    QVERIFY(other && !other->has_value());

    // Kept again (a retry), the newer one is read.
    MoveUnderWay again = move;
    again.key = "key-2";
    QVERIFY(keepMove(data, kOldId, again));
    kept = keptMove(data, kOldId);
    QVERIFY(kept && kept->has_value());
    QCOMPARE((*kept)->key, std::string("key-2"));

    forgetMove(data, kOldId);
    kept = keptMove(data, kOldId);
    QVERIFY(kept && !kept->has_value());
    forgetMove(data, kOldId); // twice is fine
    QVERIFY(!QFile::exists(QString::fromStdString(data.taskFile(kOldId, "move.json"))));
}

void TestTaskMove::aMoveUnderWayThatDoesNotReadIsAnError() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const DataDir data{dir.path().toStdString()};
    const std::string path = data.taskFile(kOldId, "move.json");
    for (
        const std::string& text :
        {std::string("garbage"), std::string("[]"), std::string(R"({"to":"https://h:1"})"),
         std::string(
             R"({"to":"https://h:1","workspace_upload":"u-1","history_upload":"u-2","key":7,"manifest":{}})")}) {
        QVERIFY(data.keepTaskFile(kOldId, "move.json", text));
        const auto kept = keptMove(data, kOldId);
        QVERIFY2(!kept, text.c_str());
        QCOMPARE(kept.error().code, ErrorCode::System);
        QVERIFY2(contains(kept.error().message, path + " does not read as a move under way"),
                 kept.error().message.c_str());
        QVERIFY2(contains(kept.error().message, "remove it"), kept.error().message.c_str());
        // Nothing continues the task on a file that does not read.
        const auto held = checkNoMoveUnderWay(data, kOldId, "resume");
        QVERIFY(!held);
        QCOMPARE(held.error().message, kept.error().message);
    }
}

void TestTaskMove::aMoveUnderWayHoldsTheTask() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const DataDir data{dir.path().toStdString()};
    QVERIFY(checkNoMoveUnderWay(data, kOldId, "resume").ok());

    QVERIFY(keepMove(data, kOldId, MoveUnderWay{"https://h:1", "u-1", "u-2", "key-1", json::object()}));
    const auto held = checkNoMoveUnderWay(data, kOldId, "resume");
    QVERIFY(!held);
    QCOMPARE(held.error().code, ErrorCode::InvalidArgument);
    const std::string& message = held.error().message;
    QVERIFY2(contains(message, "t-000000000001 cannot resume"), message.c_str());
    QVERIFY2(contains(message, "a move of it to https://h:1 began"), message.c_str());
    QVERIFY2(contains(message, "`warren move t-000000000001 --to https://h:1`"), message.c_str());
    QVERIFY(checkNoMoveUnderWay(data, "t-000000000002", "resume").ok());

    forgetMove(data, kOldId);
    QVERIFY(checkNoMoveUnderWay(data, kOldId, "resume").ok());
}

QTEST_GUILESS_MAIN(TestTaskMove)
#include "tst_task_move.moc"
