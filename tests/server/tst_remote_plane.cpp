// RemoteControlPlane, the window's way to a warrend, against a real one: what the window relies on beyond
// what the CLI tests cover.
#include "app/control/WaitFor.h"
#include "app/remote/RemoteControlPlane.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

// With safe-mode the agent asks before it writes notes.txt (no rule allows it): the task runs, waiting for its
// owner, until the test answers.
const QByteArray kTaskWaitingForItsOwner = R"({"prompt": "write the notes", "workspace": "UPLOAD",
  "presets": ["safe-mode"], "script": {"turns": [
  {"tool_calls": [{"id": "w", "name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote"}}]}]}})";

} // namespace

class TestRemotePlane : public QObject {
    Q_OBJECT

private slots:
    void callsAreAnsweredWhileManyTasksStream();
    void aQuestionOpenAcrossAServerRestartIsAskedAgain();
};

// A stream holds its connection as long as its task runs, and HTTP/1 gives six connections to a server:
// were streams and calls to share them, the seventh running task would leave every call of the window
// waiting for good. Seven tasks wait for their owner; the plane streams each, answers a call meanwhile, and
// each stream brings what its task does once answered.
void TestRemotePlane::callsAreAnsweredWhileManyTasksStream() {
    constexpr int kTasks = 7;
    QString error;
    auto server = WarrendServer::create(&error);
    QVERIFY2(server, qPrintable(error));
    const QString key = server->addUser("erin", "busy");
    QCOMPARE(server->admin({"set-quota", "--tenant", "busy", "--max-concurrent", QString::number(kTasks)}).exitCode, 0);
    QVERIFY2(server->start(&error, {"--max-tasks", QString::number(kTasks)}), qPrintable(error));

    QTemporaryDir workspace;
    QFile readme(workspace.filePath("README.md"));
    QVERIFY(readme.open(QIODevice::WriteOnly) && readme.write("# project\n") > 0);
    readme.close();
    const QString uploadId = server->upload(key, workspace.path());
    QVERIFY(!uploadId.isEmpty());
    std::set<std::string> ids;
    for (int i = 0; i < kTasks; ++i) {
        const HttpAnswer created = server->request(
            "POST", "/v1/tasks", key, QByteArray(kTaskWaitingForItsOwner).replace("UPLOAD", uploadId.toUtf8()));
        QVERIFY2(created.status == 201, created.body.constData());
        const QString id = QString::fromStdString(created.json().value("id", ""));
        QVERIFY2(!server->streamEvents(id, key, "approval_requested").empty(),
                 (server->request("GET", "/v1/tasks/" + id, key).body + "\n" + server->serverOutput()).constData());
        ids.insert(id.toStdString());
    }

    QTemporaryDir data;
    auto plane = control::waitFor<std::unique_ptr<remote::RemoteControlPlane>>([&](auto done) {
        remote::RemoteControlPlane::open({server->url(), key.toStdString(), data.path().toStdString(), false}, done);
    });
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    std::set<std::string> heard; // tasks whose stream brought an event
    connect(plane->get(), &control::ControlPlane::eventStored, this,
            [&](const std::string& taskId, const json&) { heard.insert(taskId); });
    // A listening face: each running task is streamed from here on.
    auto listed = control::waitFor<std::vector<control::TaskRecord>>([&](auto done) { (*plane)->tasks(done); });
    QVERIFY2(listed, listed ? "" : listed.error().message.c_str());
    QCOMPARE(listed->size(), std::size_t(kTasks));

    const std::string first = *ids.begin();
    auto shown = control::waitFor<std::optional<control::TaskRecord>>([&](auto done) { (*plane)->task(first, done); });
    QVERIFY2(shown, shown ? "" : shown.error().message.c_str());
    QVERIFY(shown->has_value());
    QCOMPARE((*shown)->id, first);

    for (const std::string& id : ids) {
        const HttpAnswer answered =
            server->request("POST", "/v1/tasks/" + QString::fromStdString(id) + "/approvals/w", key,
                            R"({"approved": true})");
        QVERIFY2(answered.status == 202, answered.body.constData());
    }
    QTRY_VERIFY_WITH_TIMEOUT(heard == ids, 120000);
}

// A question stays open across a kill -9 of warrend (the resumed agent asks it again without a second
// approval_requested): the face hears approvalNeeded again once the task has resumed, and its answer finishes
// the task.
void TestRemotePlane::aQuestionOpenAcrossAServerRestartIsAskedAgain() {
    QString error;
    auto server = WarrendServer::create(&error);
    QVERIFY2(server, qPrintable(error));
    const QString key = server->addUser("frank");
    QVERIFY2(server->start(&error), qPrintable(error));
    QTemporaryDir workspace, data;
    QFile readme(workspace.filePath("README.md"));
    QVERIFY(readme.open(QIODevice::WriteOnly) && readme.write("# project\n") > 0);
    readme.close();
    QFile script(data.filePath("script.json"));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(json::parse(QByteArray(kTaskWaitingForItsOwner).toStdString())["script"].dump().c_str());
    script.close();

    auto plane = control::waitFor<std::unique_ptr<remote::RemoteControlPlane>>([&](auto done) {
        remote::RemoteControlPlane::open({server->url(), key.toStdString(), data.path().toStdString(), false}, done);
    });
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    std::vector<control::ApprovalRecord> asked;
    connect(plane->get(), &control::ControlPlane::approvalNeeded, this,
            [&](const control::ApprovalRecord& approval) { asked.push_back(approval); });
    bool finished = false;
    connect(plane->get(), &control::ControlPlane::taskFinished, this, [&](const std::string&) { finished = true; });
    control::TaskSpec spec;
    spec.presets = {"safe-mode"};
    spec.provider = "scripted:" + data.filePath("script.json").toStdString();
    auto task = control::waitFor<control::TaskRecord>([&](auto done) {
        (*plane)->submit("write the notes", workspace.path().toStdString(), spec, done);
    });
    QVERIFY2(task, task ? "" : task.error().message.c_str());
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), std::size_t(1), 60000);
    QCOMPARE(asked[0].callId, std::string("w"));

    server->kill();
    QVERIFY2(server->start(&error, {}, true), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), std::size_t(2), 120000);
    QCOMPARE(asked[1].callId, std::string("w"));
    (*plane)->answerApproval(task->id, "w", true, "", false);
    QTRY_VERIFY_WITH_TIMEOUT(finished, 120000);
    QCOMPARE(asked.size(), std::size_t(2)); // once before the kill, once after: never twice for one ask
    auto record = control::waitFor<std::optional<control::TaskRecord>>([&](auto done) { (*plane)->task(task->id, done); });
    QVERIFY(record && *record);
    QCOMPARE(std::string(control::taskStatusName((*record)->status)), std::string("succeeded"));
}

QTEST_GUILESS_MAIN(TestRemotePlane)
#include "tst_remote_plane.moc"
