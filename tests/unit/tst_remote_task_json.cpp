// warrend's JSON read into the faces' records, and a TaskSpec written as POST /v1/tasks's body: the server's
// task JSON is the local one's (control::toJson), so a round trip loses nothing.
#include "app/control/ControlPlane.h"
#include "app/remote/RemoteTaskJson.h"
#include "app/remote/ServerAccountJson.h"
#include "app/wire/TaskRequest.h"

#include <QtTest>

using namespace warren;
using namespace warren::remote;
using nlohmann::json;

class TestRemoteTaskJson : public QObject {
    Q_OBJECT

private slots:
    void readsWhatToJsonWrites();
    void refusesWhatIsNoTask_data();
    void refusesWhatIsNoTask();
    void writesTheRequest();
    void readsAMovedTask();
    void refusesABadMove_data();
    void refusesABadMove();
    void readsApprovals();
    void readsArtifacts();
    void readsAnswersOfAnyShape_data();
    void readsAnswersOfAnyShape();
    void readsPagesOfEvents();
    void readsStreamedEvents_data();
    void readsStreamedEvents();
    void readsTheServerProbe();
};

void TestRemoteTaskJson::readsWhatToJsonWrites() {
    control::TaskRecord task;
    task.id = "t-0123456789ab";
    task.prompt = "fix it";
    task.workspace = "u-1";
    task.spec = R"({"provider":"scripted"})";
    task.status = control::TaskStatus::Failed;
    task.createdAt = "2026-12-02T06:00:00.000Z";
    task.startedAt = "2026-12-02T06:00:01.000Z";
    task.finishedAt = "2026-12-02T06:00:02.000Z";
    task.finishReason = "error";
    task.summary = "half";
    task.error = "the model failed";
    task.steps = 3;
    task.tokensIn = 100;
    task.tokensOut = 20;
    task.runs = 2;
    auto read = taskFromJson(control::toJson(task));
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(control::toJson(*read).dump(), control::toJson(task).dump());
}

void TestRemoteTaskJson::refusesWhatIsNoTask_data() {
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    QTest::newRow("an array") << QByteArray("[]") << "must be an object";
    QTest::newRow("no id") << QByteArray(R"({"status": "running"})") << "id";
    QTest::newRow("an unknown status") << QByteArray(R"({"id": "t-1", "status": "dreaming"})")
                                       << "does not know; update it";
}

void TestRemoteTaskJson::refusesWhatIsNoTask() {
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    const auto read = taskFromJson(json::parse(body.toStdString()));
    QVERIFY(!read.ok());
    QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());
}

void TestRemoteTaskJson::writesTheRequest() {
    control::TaskSpec spec;
    spec.provider = "openai";
    spec.model = "gpt-x";
    spec.presets = {"safe-mode"};
    // The user's MCP servers (--mcp-config, the window's Settings) go as the object mcp_servers is.
    const json servers = {{"github", {{"command", "gh-mcp"}, {"args", {"--stdio"}}}}};
    spec.overrides = {{"max_steps", 7}, {"mcp_servers", servers}};
    spec.network = "allow:pypi.org";
    spec.timeoutSec = 60;
    spec.tokenBudget = 1000;
    spec.backend = sandbox::Backend::Podman; // the server's choice, never sent
    QCOMPARE(taskRequestJson("go", "u-1", spec, nullptr),
             (json{{"prompt", "go"},
                   {"workspace", "u-1"},
                   {"network", "allow:pypi.org"},
                   {"provider", "openai"},
                   {"model", "gpt-x"},
                   {"presets", {"safe-mode"}},
                   {"settings", {{"max_steps", 7}, {"mcp_servers", servers}}},
                   {"limits", {{"timeout_sec", 60}}},
                   {"token_budget", 1000}}));
    const auto read = wire::TaskRequest::fromJson(taskRequestJson("go", "u-1", spec, nullptr));
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->settings, spec.overrides);
    const auto nulled = wire::TaskRequest::fromJson({{"prompt", "go"}, {"workspace", "u-1"}, {"settings", {{"max_steps", nullptr}}}});
    QVERIFY(!nulled.ok());
    QVERIFY(QString::fromStdString(nulled.error().message).contains("settings.max_steps"));
    // A script goes inline, in place of the provider.
    spec = control::TaskSpec();
    spec.provider = "scripted:/tmp/s.json";
    const json script = {{"turns", json::array()}};
    QCOMPARE(taskRequestJson("go", "u-1", spec, script),
             (json{{"prompt", "go"}, {"workspace", "u-1"}, {"network", "none"}, {"script", script}}));
}

// A moved task's origin (`warren move`): written only when there is one, read back as it was written.
void TestRemoteTaskJson::readsAMovedTask() {
    for (const control::TaskStatus status : {control::TaskStatus::Paused, control::TaskStatus::Interrupted,
                                             control::TaskStatus::Waiting, control::TaskStatus::Sleeping}) {
        wire::TaskRequest request;
        request.prompt = "go on";
        request.workspace = "u-1";
        request.moved = wire::MoveOrigin{"t-0123456789ab", status, "u-2"};
        const json body = request.toJson();
        QCOMPARE(body["moved"], (json{{"from", "t-0123456789ab"},
                                      {"status", control::taskStatusName(status)},
                                      {"history", "u-2"}}));
        const auto read = wire::TaskRequest::fromJson(json::parse(body.dump()));
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(read->moved);
        QVERIFY(*read->moved == *request.moved);
        QCOMPARE(read->toJson(), body);
    }
    const auto plain = wire::TaskRequest::fromJson({{"prompt", "go"}, {"workspace", "u-1"}});
    QVERIFY(plain.ok());
    QVERIFY(!plain->moved);
    QVERIFY(!plain->toJson().contains("moved"));
}

void TestRemoteTaskJson::refusesABadMove_data() {
    QTest::addColumn<QByteArray>("moved");
    QTest::addColumn<QString>("agent");
    QTest::addColumn<QString>("message");
    const QString warren = "warren";
    QTest::newRow("from not a task id")
        << QByteArray(R"({"from": "t-XYZ", "status": "paused", "history": "u-2"})") << warren
        << "moved.from: must be a task id";
    QTest::newRow("from not an id at all")
        << QByteArray(R"({"from": "x", "status": "paused", "history": "u-2"})") << warren
        << "moved.from: must be a task id";
    QTest::newRow("from in capitals")
        << QByteArray(R"({"from": "t-0123456789AB", "status": "paused", "history": "u-2"})") << warren
        << "moved.from: must be a task id";
    QTest::newRow("from missing") << QByteArray(R"({"status": "paused", "history": "u-2"})") << warren
                                  << "moved.from: missing";
    QTest::newRow("running")
        << QByteArray(R"({"from": "t-0123456789ab", "status": "running", "history": "u-2"})") << warren
        << "moved.status: must be paused, interrupted, waiting or sleeping, got \"running\"";
    QTest::newRow("moved") << QByteArray(R"({"from": "t-0123456789ab", "status": "moved", "history": "u-2"})")
                           << warren
                           << "moved.status: must be paused, interrupted, waiting or sleeping, got \"moved\"";
    QTest::newRow("an unknown status")
        << QByteArray(R"({"from": "t-0123456789ab", "status": "dozing", "history": "u-2"})") << warren
        << "moved.status: must be paused";
    QTest::newRow("an empty history")
        << QByteArray(R"({"from": "t-0123456789ab", "status": "paused", "history": ""})") << warren
        << "moved.history: is empty";
    QTest::newRow("a history not a string")
        << QByteArray(R"({"from": "t-0123456789ab", "status": "paused", "history": 7})") << warren
        << "moved.history";
    QTest::newRow("an unknown key")
        << QByteArray(R"({"from": "t-0123456789ab", "status": "paused", "history": "u-2", "to": "x"})")
        << warren << "moved: unknown key \"to\"";
    QTest::newRow("not an object") << QByteArray(R"("t-0123456789ab")") << warren
                                   << "moved: must be an object";
    QTest::newRow("a CLI's task")
        << QByteArray(R"({"from": "t-0123456789ab", "status": "paused", "history": "u-2"})") << "codex"
        << "moved: only a task of Warren's own agent moves, not one of codex";
}

void TestRemoteTaskJson::refusesABadMove() {
    QFETCH(QByteArray, moved);
    QFETCH(QString, agent);
    QFETCH(QString, message);
    const json body = {{"prompt", "go on"},
                       {"workspace", "u-1"},
                       {"agent", agent.toStdString()},
                       {"moved", json::parse(moved.toStdString())}};
    const auto read = wire::TaskRequest::fromJson(body);
    QVERIFY(!read.ok());
    QCOMPARE(read.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());
}

void TestRemoteTaskJson::readsApprovals() {
    const json asked = {{"seq", 9},
                        {"ts", "2026-12-02T06:00:00.000Z"},
                        {"type", "approval_requested"},
                        {"step", 2},
                        {"tool", "shell"},
                        {"data", {{"id", "call-1"}, {"arguments", {{"command", "rm -rf x"}}}, {"reason", "destructive"}}}};
    const auto approval = approvalFromEvent("t-1", asked);
    QVERIFY(approval.has_value());
    QCOMPARE(approval->taskId, "t-1");
    QCOMPARE(approval->callId, "call-1");
    QCOMPARE(approval->tool, "shell");
    QCOMPARE(json::parse(approval->arguments), (json{{"command", "rm -rf x"}}));
    QCOMPARE(approval->reason, "destructive");
    json other = asked;
    other["type"] = "tool_call";
    QVERIFY(!approvalFromEvent("t-1", other));
    json broken = asked;
    broken["data"] = "no";
    QVERIFY(!approvalFromEvent("t-1", broken));
}

void TestRemoteTaskJson::readsArtifacts() {
    const auto read = artifactsFromJson(
        "t-1", json{{"artifacts", {{{"path", "resource_report.json"}, {"bytes", 10}, {"sha256", "ab"}}}}});
    QVERIFY(read.ok());
    QCOMPARE(read->size(), std::size_t{1});
    QCOMPARE(read->front().path, "resource_report.json");
    QCOMPARE(read->front().bytes, 10u);
    QVERIFY(!artifactsFromJson("t-1", json{{"artifacts", {{{"bytes", 1}}}}}).ok());
    QVERIFY(!artifactsFromJson("t-1", json::array()).ok());
}

// Whatever answers at the server's URL decides the bytes: an answer of another shape than warrend's reads as
// an error or as nothing, and never throws (fuzz_remote_answers found approvalFromEvent throwing on a "type"
// that is a number, through json::value, on every event of the live stream).
void TestRemoteTaskJson::readsAnswersOfAnyShape_data() {
    QTest::addColumn<QByteArray>("answer");
    QTest::newRow("an event whose type is a number") << QByteArray(R"({"seq": 1, "type": 1, "data": {}})");
    QTest::newRow("an array") << QByteArray(R"([{"tasks": []}])");
    QTest::newRow("a string") << QByteArray(R"("events")");
    QTest::newRow("members of other types")
        << QByteArray(R"({"tasks": {}, "events": 3, "last_seq": "9", "artifacts": "a", "provider_keys": {"provider": "openai"}})");
    QTest::newRow("items of other types")
        << QByteArray(R"({"tasks": [1], "events": [[]], "last_seq": 1, "artifacts": [null], "provider_keys": [1, {"provider": 2}]})");
}

void TestRemoteTaskJson::readsAnswersOfAnyShape() {
    QFETCH(QByteArray, answer);
    const json read = json::parse(answer.toStdString());
    QVERIFY(!approvalFromEvent("t-1", read));
    QVERIFY(!taskFromJson(read).ok());
    QVERIFY(!tasksFromJson(read).ok());
    QVERIFY(!eventsPageFromJson("t-1", read).ok());
    QVERIFY(!artifactsFromJson("t-1", read).ok());
    QVERIFY(!listsProviderKey(read, "openai"));
}

void TestRemoteTaskJson::readsPagesOfEvents() {
    const auto page = eventsPageFromJson("t-1", json::parse(R"({"events": [{"seq": 4, "type": "x"}, {"seq": 5}], "last_seq": 5})"));
    QVERIFY(page.ok());
    QCOMPARE(page->lastSeq, 5u);
    QCOMPARE(page->events.size(), std::size_t{2});
    const auto noSeq = eventsPageFromJson("t-1", json::parse(R"({"events": [{"seq": 4}, {"type": "x"}], "last_seq": 5})"));
    QVERIFY(!noSeq.ok());
    QVERIFY2(noSeq.error().message.find("without its seq") != std::string::npos, noSeq.error().message.c_str());
    QVERIFY(!eventsPageFromJson("t-1", json::parse(R"({"events": [{"seq": -1}], "last_seq": 5})")).ok());
    QVERIFY(listsProviderKey(json::parse(R"({"provider_keys": [{"provider": "anthropic"}, {"provider": "openai"}]})"), "openai"));
    auto tasks = tasksFromJson(json::parse(R"({"tasks": [{"id": "t-1", "status": "running"}]})"));
    QVERIFY(tasks.ok());
    QCOMPARE(tasks->size(), std::size_t{1});
}

void TestRemoteTaskJson::readsStreamedEvents_data() {
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<bool>("read");
    QTest::newRow("an event") << QByteArray(R"({"seq": 3, "type": "tool_call"})") << true;
    QTest::newRow("no seq") << QByteArray(R"({"type": "tool_call"})") << false;
    QTest::newRow("a seq that is a string") << QByteArray(R"({"seq": "3"})") << false;
    QTest::newRow("a negative seq") << QByteArray(R"({"seq": -3})") << false;
    QTest::newRow("not JSON") << QByteArray("{\"seq\": 3") << false;
    QTest::newRow("an array") << QByteArray("[3]") << false;
    // Nested deeper than json_fields::kMaxJsonDepth: a copy or dump of it would recurse that deep.
    QTest::newRow("nested 100000 deep")
        << (QByteArray(R"({"seq": 3, "data": )") + QByteArray(100000, '[') + QByteArray(100000, ']') + "}") << false;
}

void TestRemoteTaskJson::readsStreamedEvents() {
    QFETCH(QByteArray, data);
    QFETCH(bool, read);
    const auto event = eventFromStreamData(std::string_view(data.constData(), static_cast<std::size_t>(data.size())));
    QCOMPARE(event.has_value(), read);
}

void TestRemoteTaskJson::readsTheServerProbe() {
    const json server = {{"name", "warrend"}, {"version", "1.0"}, {"sandbox", "bwrap"}};
    const json me = json::parse(R"({"user": "ann", "tenant": "t", "quotas": {"user": {}}, "usage": {"active_tasks": 2, "tokens_this_month": 7}})");
    auto account = serverAccountFromJson("https://w", server, me);
    QVERIFY(account.ok());
    QCOMPARE(account->user, "ann");
    QCOMPARE(account->activeTasks, 2u);
    QCOMPARE(account->tokensThisMonth, 7u);
    QCOMPARE(account->quotas, (json{{"user", json::object()}}));
    // /v1/me answered with an array once threw out of json::value; mistyped members read as absent.
    QVERIFY(!serverAccountFromJson("https://w", server, json::array()).ok());
    auto odd = serverAccountFromJson("https://w", server, json::parse(R"({"user": 1, "quotas": [], "usage": "x"})"));
    QVERIFY(odd.ok());
    QCOMPARE(odd->user, "");
    QVERIFY(odd->quotas.is_object());
    const auto notWarrend = serverAccountFromJson("https://w", json::parse(R"({"name": 5})"), me);
    QVERIFY(!notWarrend.ok());
    QVERIFY(notWarrend.error().message.find("not a warrend") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestRemoteTaskJson)
#include "tst_remote_task_json.moc"
