// warrend's JSON read into the faces' records, and a TaskSpec written as POST /v1/tasks's body: the server's
// task JSON is the local one's (control::toJson), so a round trip loses nothing.
#include "app/control/ControlPlane.h"
#include "app/remote/RemoteTaskJson.h"

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
    void readsApprovals();
    void readsArtifacts();
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
    spec.overrides = {{"max_steps", 7}};
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
                   {"settings", {{"max_steps", 7}}},
                   {"limits", {{"timeout_sec", 60}}},
                   {"token_budget", 1000}}));
    // A script goes inline, in place of the provider.
    spec = control::TaskSpec();
    spec.provider = "scripted:/tmp/s.json";
    const json script = {{"turns", json::array()}};
    QCOMPARE(taskRequestJson("go", "u-1", spec, script),
             (json{{"prompt", "go"}, {"workspace", "u-1"}, {"network", "none"}, {"script", script}}));
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

QTEST_GUILESS_MAIN(TestRemoteTaskJson)
#include "tst_remote_task_json.moc"
