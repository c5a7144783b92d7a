// warrend as its users meet it: a real server process on PostgreSQL, real HTTP, real sandboxes, scripted
// models. Every endpoint is tried with another user's ids; bad and hostile input is refused with nothing
// created; a kill -9 of the server and a restart of the database lose and repeat no event.
#include "app/store/postgres/PgConnection.h"
#include "app/store/postgres/PgQuery.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <map>
#include <set>
#include <sys/resource.h>

using namespace warren::test;
using nlohmann::json;

namespace {

const QByteArray kScriptWritingDocs = R"({"turns": [
  {"content": "Writing the notes.", "tool_calls": [{"name": "write_file", "arguments": {"path": "docs/notes.md", "content": "hello\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote docs/notes.md"}}]}]})";

// With safe-mode the agent asks before it writes; docs/ is allowed by a rule, notes.txt by no rule, so that
// write waits for its owner's answer.
const QByteArray kScriptAsking = R"({"turns": [
  {"content": "First the docs.", "tool_calls": [{"name": "write_file", "arguments": {"path": "docs/a.md", "content": "a\n"}}]},
  {"content": "Now a file no rule allows.", "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt"}}]}]})";

// kScriptAsking, then what the agent does after its owner's reply: another file, and finish again.
const QByteArray kScriptReplied = R"({"turns": [
  {"content": "First the docs.", "tool_calls": [{"name": "write_file", "arguments": {"path": "docs/a.md", "content": "a\n"}}]},
  {"content": "Now a file no rule allows.", "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt"}}]},
  {"content": "As you asked.", "tool_calls": [{"name": "write_file", "arguments": {"path": "docs/b.md", "content": "b\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote docs/b.md too"}}]}]})";

const QByteArray kSafeMode = R"(, "presets": ["safe-mode"])";

// The task's agent starts two sub-agents, each writing its own file in the shared workspace.
const QByteArray kScriptWithSubAgents = R"({"turns": [
  {"tool_calls": [{"id": "s1", "name": "spawn_agent", "arguments": {"brief": "Write docs/one.md"}},
                  {"id": "s2", "name": "spawn_agent", "arguments": {"brief": "Write docs/two.md"}}]},
  {"tool_calls": [{"id": "w", "name": "wait_agents", "arguments": {}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "both written"}}]}],
 "agents": {
  "agent-1": [{"tool_calls": [{"id": "x", "name": "write_file", "arguments": {"path": "docs/one.md", "content": "one\n"}}]},
              {"tool_calls": [{"name": "finish", "arguments": {"summary": "one"}}]}],
  "agent-2": [{"tool_calls": [{"id": "x", "name": "write_file", "arguments": {"path": "docs/two.md", "content": "two\n"}}]},
              {"tool_calls": [{"name": "finish", "arguments": {"summary": "two"}}]}]}})";

QByteArray taskBody(const QString& upload, const QByteArray& script, const QByteArray& more = {}) {
    return R"({"prompt": "do it", "workspace": ")" + upload.toUtf8() + R"(", "script": )" + script + more +
           "}";
}

// The task's events up to the question about notes.txt (docs/a.md's is decided by a rule), from after lastId.
std::vector<json> untilQuestion(WarrendServer& server, const QString& task, const QString& key,
                                std::uint64_t lastId = 0) {
    std::vector<json> events;
    for (int streams = 0; streams < 5; ++streams) {
        const auto more =
            server.streamEvents(task, key, "approval_requested",
                                lastId ? QByteArray::number(static_cast<qulonglong>(lastId)) : QByteArray());
        events.insert(events.end(), more.begin(), more.end());
        if (more.empty())
            break;
        lastId = more.back().value("seq", lastId);
        const json& last = more.back();
        if (last.value("type", "") == "approval_requested" &&
            last["data"]["arguments"].value("path", "") == "notes.txt")
            break;
    }
    return events;
}

} // namespace

class TestWarrend : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void describesItselfWithoutAKey();
    void servesWhatTheOpenApiFileSays();
    void refusesCallersWithoutAValidKey_data();
    void refusesCallersWithoutAValidKey();
    void runsATaskFromAnUpload();
    void pagesEventsBackFromTheEnd();
    void anotherUsersIdsAnswer404_data();
    void anotherUsersIdsAnswer404();
    void badRequestsCreateNothing_data();
    void badRequestsCreateNothing();
    void aCliAgentIsTheOperatorsInstall();
    void oversizeBodiesAreRefusedUnread();
    void smuggledRequestsNeverRun_data();
    void smuggledRequestsNeverRun();
    void hostileUploadsLeaveNothing_data();
    void hostileUploadsLeaveNothing();
    void idempotencyKeyCreatesOnce();
    void concurrencyQuotaAnswers429();
    void queuedTasksWaitForASlot();
    void limitsAreClampedAndComeFirst();
    void subAgentsRunOnTheServer();
    void theCallersMcpServersReachTheTask();
    void approvalsSurviveAKilledServer();
    void repliesContinueAnEndedTask();
    void anAttendedTaskWaitsForItsOwner();
    void readyOnlyWithItsDatabase();
    void eventsSurviveADatabaseRestart();
    void holdsNoCoreFileAndRoomForManyTasks();
    void aFinishedTasksFilesGoAfterItsRetention();
    void theDiskQuotaRefusesWhatWouldExceedIt();

private:
    QString upload(const QString& key, const QString& directory);
    QString workspace(); // a small project directory
    QStringList taskIds(const QString& key);

    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_scratch;
    QString m_alice, m_bob;
    QString m_aliceTask, m_aliceUpload;
};

void TestWarrend::initTestCase() {
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice");
    m_bob = m_server->addUser("bob");
    QVERIFY(m_alice.startsWith("wrn_") && m_bob.startsWith("wrn_"));
    // Started as systemd starts a service: 1,024 open files at most until it raises that itself.
    rlimit files{};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &files), 0);
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 1024);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &files), 0);
    // The operator names a Claude Code that is not there (aCliAgentIsTheOperatorsInstall).
    QVERIFY2(m_server->start(&error, {"--agent-cli", "claude-code=" + m_scratch.path() + "/opt/no-claude"}),
             qPrintable(error));
}

QString TestWarrend::workspace() {
    static int n = 0;
    const QString dir = m_scratch.path() + "/ws" + QString::number(++n);
    QDir().mkpath(dir + "/docs");
    QFile readme(dir + "/README.md");
    readme.open(QIODevice::WriteOnly);
    readme.write("# project\n");
    return dir;
}

QString TestWarrend::upload(const QString& key, const QString& directory) {
    const HttpAnswer answer = m_server->request("POST", "/v1/uploads", key, tarOf(directory),
                                                {{"Content-Type", "application/x-tar"}});
    if (answer.status != 201)
        qWarning() << "upload:" << answer.status << answer.body;
    return QString::fromStdString(answer.json().value("id", ""));
}

QStringList TestWarrend::taskIds(const QString& key) {
    QStringList ids;
    for (const auto& task : m_server->request("GET", "/v1/tasks", key).json().value("tasks", json::array()))
        ids << QString::fromStdString(task.value("id", ""));
    return ids;
}

void TestWarrend::describesItselfWithoutAKey() {
    const HttpAnswer answer = m_server->request("GET", "/v1/server", {});
    QCOMPARE(answer.status, 200);
    QCOMPARE(answer.json().value("api_version", 0), 1);
    QVERIFY(!answer.json().value("version", std::string()).empty());
}

// docs/openapi.json and the server agree: every documented operation is routed (it asks for a key, or
// answers), and every documented path allows exactly the documented methods (405's Allow says which).
void TestWarrend::servesWhatTheOpenApiFileSays() {
    QFile file(QStringLiteral(WARREN_OPENAPI));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const json spec = json::parse(file.readAll().toStdString());
    QVERIFY(spec["paths"].size() >= 10);
    for (const auto& [pattern, operations] : spec["paths"].items()) {
        QString path = QString::fromStdString(pattern);
        path.replace("{id}", "t-000000000000")
            .replace("{call}", "call_0_0")
            .replace("{name}", "output.txt")
            .replace("{provider}", "openai");
        QStringList documented;
        for (const auto& [method, operation] : operations.items()) {
            documented << QString::fromStdString(method).toUpper();
            const bool open = operation.contains("security") && operation["security"].empty();
            const HttpAnswer answer =
                m_server->request(QByteArray::fromStdString(method).toUpper(), path, {});
            QVERIFY2(answer.status == (open ? 200 : 401),
                     qPrintable(path + " " + QString::fromStdString(method)));
        }
        if (documented.contains("GET"))
            documented << "HEAD";
        const HttpAnswer wrong = m_server->request("PATCH", path, m_alice); // a method no path has
        QCOMPARE(wrong.status, 405);
        QStringList allowed = QString::fromLatin1(wrong.header("Allow")).split(", ");
        allowed.sort();
        documented.sort();
        QCOMPARE(allowed, documented);
    }
}

void TestWarrend::refusesCallersWithoutAValidKey_data() {
    QTest::addColumn<QByteArray>("authorization");
    const QByteArray wellFormedUnknown = "Bearer wrn_" + QByteArray(52, 'a');
    QTest::newRow("no header") << QByteArray();
    QTest::newRow("not bearer") << QByteArray("Basic YWxpY2U6cGFzcw==");
    QTest::newRow("malformed key") << QByteArray("Bearer wrn_short");
    QTest::newRow("unknown key") << wellFormedUnknown;
    QTest::newRow("key with trailing junk") << QByteArray("Bearer ") + m_alice.toUtf8() + "x";
    QTest::newRow("two keys") << QByteArray("Bearer ") + m_alice.toUtf8() + " " + m_bob.toUtf8();
}

void TestWarrend::refusesCallersWithoutAValidKey() {
    QFETCH(QByteArray, authorization);
    for (const char* path : {"/v1/me", "/v1/tasks", "/v1/tasks/t-000000000000"}) {
        QList<std::pair<QByteArray, QByteArray>> headers;
        if (!authorization.isEmpty())
            headers.append({"Authorization", authorization});
        const HttpAnswer answer = m_server->request("GET", path, {}, {}, headers);
        QCOMPARE(answer.status, 401);
        QCOMPARE(answer.errorCode(), QString("unauthorized"));
    }
}

void TestWarrend::runsATaskFromAnUpload() {
    m_aliceUpload = upload(m_alice, workspace());
    QVERIFY(!m_aliceUpload.isEmpty());
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(m_aliceUpload, kScriptWritingDocs));
    QVERIFY2(created.status == 201, created.body.constData());
    m_aliceTask = QString::fromStdString(created.json().value("id", ""));
    QCOMPARE(QString::fromStdString(created.json().value("workspace", "")), m_aliceUpload);

    const auto events = m_server->streamEvents(m_aliceTask, m_alice, {}); // to the stream's end
    QVERIFY(!events.empty());
    QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(events.front().value("type", "")), QString("limits_applied"));
    QVERIFY(dense(seqsOf(events)));
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));

    const HttpAnswer shown = m_server->request("GET", "/v1/tasks/" + m_aliceTask, m_alice);
    QCOMPARE(QString::fromStdString(shown.json().value("status", "")), QString("succeeded"));
    const HttpAnswer page =
        m_server->request("GET", "/v1/tasks/" + m_aliceTask + "/events?after_seq=1", m_alice);
    QCOMPARE(page.json()["events"].size(), events.size() - 1);
    QCOMPARE(page.json().value("last_seq", 0u), events.back().value("seq", 0u));
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + m_aliceTask + "/patch", m_alice);
    QCOMPARE(patch.status, 200);
    QVERIFY2(patch.body.contains("b/docs/notes.md") && patch.body.contains("+hello"), patch.body.constData());
    QVERIFY(!patch.body.contains("README.md"));
    QVERIFY(taskIds(m_alice).contains(m_aliceTask));
}

// The window's way in: the latest page first, then earlier ones, each oldest first, meeting every event once.
void TestWarrend::pagesEventsBackFromTheEnd() {
    QVERIFY(!m_aliceTask.isEmpty());
    const QString events = "/v1/tasks/" + m_aliceTask + "/events";
    const json all = m_server->request("GET", events, m_alice).json()["events"];
    QVERIFY(all.size() >= 5);
    const auto total = static_cast<std::uint64_t>(all.size());

    const HttpAnswer latest = m_server->request("GET", events + "?before_seq=0&limit=2", m_alice);
    QCOMPARE(latest.status, 200);
    std::vector<json> page = latest.json()["events"].get<std::vector<json>>();
    QCOMPARE(seqsOf(page), (std::vector<std::uint64_t>{total - 1, total}));
    QCOMPARE(latest.json().value("last_seq", 0u), total);
    QCOMPARE(page.back(), all.back());

    std::vector<json> seen = page;
    for (int pages = 0; pages < 100 && !page.empty(); ++pages) {
        const auto first = page.front().value("seq", std::uint64_t{0});
        const HttpAnswer earlier =
            m_server->request("GET", events + "?limit=2&before_seq=" + QString::number(first), m_alice);
        QCOMPARE(earlier.status, 200);
        page = earlier.json()["events"].get<std::vector<json>>();
        QVERIFY(page.size() <= 2);
        seen.insert(seen.begin(), page.begin(), page.end());
        if (page.empty())
            QCOMPARE(earlier.json().value("last_seq", 1u), 0u);
    }
    QVERIFY(dense(seqsOf(seen)));
    QCOMPARE(seen.size(), all.size());

    const HttpAnswer both = m_server->request("GET", events + "?after_seq=1&before_seq=3", m_alice);
    QCOMPARE(both.status, 400);
    QCOMPARE(both.errorCode(), QString("invalid_request"));
    QVERIFY2(both.body.contains("after_seq") && both.body.contains("before_seq"), both.body.constData());
    const HttpAnswer bad = m_server->request("GET", events + "?before_seq=-1", m_alice);
    QCOMPARE(bad.status, 400);
    QVERIFY2(bad.body.contains("before_seq"), bad.body.constData());
}

void TestWarrend::anotherUsersIdsAnswer404_data() {
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path"); // TASK: alice's task id
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("show") << QByteArray("GET") << "/v1/tasks/TASK" << QByteArray();
    QTest::newRow("events") << QByteArray("GET") << "/v1/tasks/TASK/events" << QByteArray();
    QTest::newRow("events before") << QByteArray("GET") << "/v1/tasks/TASK/events?before_seq=0&limit=2"
                                   << QByteArray();
    QTest::newRow("stream") << QByteArray("GET") << "/v1/tasks/TASK/events/stream" << QByteArray();
    QTest::newRow("patch") << QByteArray("GET") << "/v1/tasks/TASK/patch" << QByteArray();
    QTest::newRow("artifacts") << QByteArray("GET") << "/v1/tasks/TASK/artifacts" << QByteArray();
    QTest::newRow("an artifact") << QByteArray("GET") << "/v1/tasks/TASK/artifacts/resource_report.json"
                                 << QByteArray();
    QTest::newRow("cancel") << QByteArray("POST") << "/v1/tasks/TASK/cancel" << QByteArray();
    QTest::newRow("resume") << QByteArray("POST") << "/v1/tasks/TASK/resume" << QByteArray();
    QTest::newRow("reply") << QByteArray("POST") << "/v1/tasks/TASK/reply"
                           << QByteArray(R"({"message": "now delete docs/"})");
    QTest::newRow("approval") << QByteArray("POST") << "/v1/tasks/TASK/approvals/call_0_0"
                              << QByteArray(R"({"approved": true})");
    QTest::newRow("a task on alice's upload") << QByteArray("POST") << "/v1/tasks" << QByteArray("UPLOAD");
}

void TestWarrend::anotherUsersIdsAnswer404() {
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QVERIFY(!m_aliceTask.isEmpty());
    path.replace("TASK", m_aliceTask);
    if (body == "UPLOAD")
        body = taskBody(m_aliceUpload, kScriptWritingDocs);
    const QStringList before = taskIds(m_bob);
    const HttpAnswer answer = m_server->request(method, path, m_bob, body);
    QCOMPARE(answer.status, 404);
    QCOMPARE(answer.errorCode(), QString("not_found"));
    QVERIFY(!answer.body.contains("docs/notes.md") && !answer.body.contains("limits_applied"));
    QCOMPARE(taskIds(m_bob), before);
    QVERIFY(!taskIds(m_bob).contains(m_aliceTask));
    // Alice's task is as it was.
    const HttpAnswer mine = m_server->request("GET", "/v1/tasks/" + m_aliceTask, m_alice);
    QCOMPARE(QString::fromStdString(mine.json().value("status", "")), QString("succeeded"));
}

void TestWarrend::badRequestsCreateNothing_data() {
    QTest::addColumn<QByteArray>("body"); // UPLOAD: an upload of alice's
    QTest::addColumn<int>("status");
    QTest::newRow("not JSON") << QByteArray("{\"prompt\": ") << 400;
    QTest::newRow("not an object") << QByteArray("[1, 2]") << 400;
    QTest::newRow("unknown field") << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "sudo": true})")
                                   << 400;
    QTest::newRow("no prompt") << QByteArray(R"({"workspace": "UPLOAD"})") << 400;
    QTest::newRow("prompt not a string") << QByteArray(R"({"prompt": 7, "workspace": "UPLOAD"})") << 400;
    QTest::newRow("script and provider")
        << QByteArray(
               R"({"prompt": "x", "workspace": "UPLOAD", "provider": "openai", "script": {"turns": []}})")
        << 400;
    QTest::newRow("script malformed")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "script": {"turns": [{"tool_calls": 3}]}})")
        << 400;
    QTest::newRow("unknown limit") << QByteArray(
                                          R"({"prompt": "x", "workspace": "UPLOAD", "limits": {"gpus": 1}})")
                                   << 400;
    QTest::newRow("quota name as a limit")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "limits": {"max_concurrent": 100}})") << 400;
    QTest::newRow("bad network")
        << QByteArray(
               R"({"prompt": "x", "workspace": "UPLOAD", "network": "everything", "script": {"turns": []}})")
        << 400;
    QTest::newRow("queue not a boolean")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "queue": "yes", "script": {"turns": []}})")
        << 400;
    QTest::newRow("attended not a boolean")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "attended": 1, "script": {"turns": []}})")
        << 400;
    QTest::newRow("unknown agent")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "agent": "aider", "script": {"turns": []}})")
        << 400;
    // The CLI is the operator's install: a caller cannot name a path on the server.
    QTest::newRow("agent path")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "agent": "codex", "agent_path": "/bin/sh"})")
        << 400;
    // Where the egress resolves names and which authorities it trusts are the operator's (serve --resolve,
    // --egress-ca); a caller names only secrets of their own.
    QTest::newRow("resolve") << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "resolve": ["a.test:443:127.0.0.1"]})")
                             << 400;
    QTest::newRow("egress CA") << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "egress_ca": "/etc/passwd"})")
                               << 400;
    QTest::newRow("secrets not a list") << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "secrets": "GH_TOKEN"})")
                                        << 400;
    QTest::newRow("secret with a bad name")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "secrets": ["LD_PRELOAD"]})") << 400;
    QTest::newRow("CLI agent that would sleep")
        << QByteArray(
               R"({"prompt": "x", "workspace": "UPLOAD", "agent": "codex", "provider": "openai", "model": "m", "settings": {"idle_sleep_sec": 60}})")
        << 400;
    QTest::newRow("CLI agent on a script")
        << QByteArray(R"({"prompt": "x", "workspace": "UPLOAD", "agent": "codex", "script": {"turns": []}})")
        << 400;
    QTest::newRow("unknown upload") << QByteArray(R"({"prompt": "x", "workspace": "u-0000000000000000"})")
                                    << 404;
}

void TestWarrend::badRequestsCreateNothing() {
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QVERIFY(!m_aliceUpload.isEmpty());
    body.replace("UPLOAD", m_aliceUpload.toUtf8());
    const QStringList before = taskIds(m_alice);
    const HttpAnswer answer = m_server->request("POST", "/v1/tasks", m_alice, body);
    QCOMPARE(answer.status, status);
    QVERIFY2(!answer.errorCode().isEmpty(), answer.body.constData());
    QCOMPARE(taskIds(m_alice), before);
    QCOMPARE(QDir(m_server->dataDir() + "/data/workspaces")
                 .entryList(QDir::NoDotAndDotDot | QDir::AllEntries)
                 .size(),
             before.size());
}

// A CLI agent the operator's install lacks is refused before its workspace is copied, in words that name
// no path of the server's.
void TestWarrend::aCliAgentIsTheOperatorsInstall() {
    const QStringList before = taskIds(m_alice);
    const HttpAnswer answer = m_server->request(
        "POST", "/v1/tasks", m_alice,
        R"({"prompt": "x", "provider": "anthropic", "model": "m", "agent": "claude-code", "workspace": ")" +
            m_aliceUpload.toUtf8() + "\"}");
    QCOMPARE(answer.status, 400);
    const std::string message = answer.json()["error"].value("message", "");
    QVERIFY2(message.find("does not offer claude-code") != std::string::npos, message.c_str());
    QVERIFY2(message.find("no-claude") == std::string::npos && message.find(m_scratch.path().toStdString()) == std::string::npos,
             message.c_str());
    QCOMPARE(taskIds(m_alice), before);
}

// A body declared larger than the route takes is refused from its headers, before a byte of it is read.
void TestWarrend::oversizeBodiesAreRefusedUnread() {
    const QUrl url(m_server->url());
    QTcpSocket socket;
    socket.connectToHost(url.host(), static_cast<quint16>(url.port()));
    QVERIFY(socket.waitForConnected(10000));
    socket.write("POST /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + m_alice.toUtf8() +
                 "\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n");
    QByteArray answer;
    while (!answer.contains("\r\n\r\n") && socket.waitForReadyRead(10000))
        answer += socket.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 413"), answer.constData());
    QVERIFY(taskIds(m_alice).size() >= 1);
}

// A head whose framing or credentials two parsers could read differently, with a second request behind it
// that would create one of bob's tasks (as a proxy in front that framed the body otherwise would forward
// it): 400, the connection closed, and bob has no new task.
void TestWarrend::smuggledRequestsNeverRun_data() {
    QTest::addColumn<QByteArray>("head"); // before the smuggled request; %ALICE% is alice's key
    QTest::newRow("Content-Length and Transfer-Encoding")
        << QByteArray("POST /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %ALICE%\r\n"
                      "Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "0\r\n\r\n");
    QTest::newRow("two Content-Lengths")
        << QByteArray("POST /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %ALICE%\r\n"
                      "Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}");
    QTest::newRow("Transfer-Encoding with a space")
        << QByteArray("POST /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %ALICE%\r\n"
                      "Content-Type: application/json\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n");
    QTest::newRow("two Authorizations")
        << QByteArray("GET /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %ALICE%\r\n"
                      "Authorization: Bearer wrn_other\r\n\r\n");
    QTest::newRow("NUL in Authorization")
        << QByteArray("GET /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %ALICE%") + QByteArray(1, '\0') +
               "x\r\n\r\n";
}

void TestWarrend::smuggledRequestsNeverRun() {
    QFETCH(QByteArray, head);
    head.replace("%ALICE%", m_alice.toUtf8());
    static QString bobsUpload;
    if (bobsUpload.isEmpty())
        bobsUpload = upload(m_bob, workspace());
    const qsizetype bobsTasks = taskIds(m_bob).size();
    const QByteArray body = taskBody(bobsUpload, kScriptWritingDocs);
    const QByteArray smuggled = "POST /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + m_bob.toUtf8() +
                                "\r\nContent-Type: application/json\r\nContent-Length: " +
                                QByteArray::number(body.size()) + "\r\n\r\n" + body;
    const QUrl url(m_server->url());
    QTcpSocket socket;
    socket.connectToHost(url.host(), static_cast<quint16>(url.port()));
    QVERIFY(socket.waitForConnected(10000));
    socket.write(head + smuggled);
    QByteArray answer;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(30000))
        answer += socket.readAll();
    answer += socket.readAll();
    QVERIFY2(socket.state() != QAbstractSocket::ConnectedState, "the server kept the connection open");
    QVERIFY2(answer.startsWith("HTTP/1.1 400"), answer.constData());
    QVERIFY(answer.contains("Connection: close"));
    QCOMPARE(answer.count("HTTP/1.1 "), 1);
    QCOMPARE(taskIds(m_bob).size(), bobsTasks);
}

void TestWarrend::hostileUploadsLeaveNothing_data() {
    QTest::addColumn<QString>("python"); // writes the tar to sys.stdout.buffer with tarfile, as t
    QTest::newRow("not a tar") << "import sys; sys.stdout.buffer.write(b'PK\\x03\\x04' + b'x' * 2000)";
    QTest::newRow("dot-dot path")
        << "i=tarfile.TarInfo('../escape.txt'); i.size=1; t.addfile(i, io.BytesIO(b'x'))";
    QTest::newRow("absolute path")
        << "i=tarfile.TarInfo('/tmp/escape.txt'); i.size=1; t.addfile(i, io.BytesIO(b'x'))";
    QTest::newRow("symlink out")
        << "i=tarfile.TarInfo('out'); i.type=tarfile.SYMTYPE; i.linkname='/etc'; t.addfile(i)";
    QTest::newRow("through a symlink")
        << "i=tarfile.TarInfo('d'); i.type=tarfile.SYMTYPE; i.linkname='.'; t.addfile(i); "
           "j=tarfile.TarInfo('d/f'); j.size=1; t.addfile(j, io.BytesIO(b'x'))";
    QTest::newRow("hard link to passwd")
        << "i=tarfile.TarInfo('p'); i.type=tarfile.LNKTYPE; i.linkname='/etc/passwd'; t.addfile(i)";
    QTest::newRow("device")
        << "i=tarfile.TarInfo('null'); i.type=tarfile.CHRTYPE; i.devmajor=1; i.devminor=3; t.addfile(i)";
    QTest::newRow("truncated") << "i=tarfile.TarInfo('big'); i.size=1<<20; t.addfile(i, io.BytesIO(b'x' * "
                                  "(1<<20))); t.fileobj.truncate(4096)";
}

void TestWarrend::hostileUploadsLeaveNothing() {
    QFETCH(QString, python);
    const QString program =
        python.startsWith("import sys")
            ? python
            : "import io, sys, tarfile\nbuf = io.BytesIO()\nt = tarfile.open(fileobj=buf, mode='w', "
              "format=tarfile.GNU_FORMAT)\n" +
                  python +
                  "\nt.close() if not t.fileobj.closed else None\nsys.stdout.buffer.write(buf.getvalue()[:" +
                  (python.contains("truncate") ? "4096" : "None") + "])\n";
    QProcess make;
    make.start("python3", {"-c", program});
    QVERIFY(make.waitForFinished(30000));
    const QByteArray tar = make.readAllStandardOutput();
    QVERIFY2(!tar.isEmpty(), make.readAllStandardError().constData());
    const QStringList uploadsBefore =
        QDir(m_server->dataDir() + "/data/uploads").entryList(QDir::NoDotAndDotDot | QDir::AllEntries);
    const HttpAnswer answer =
        m_server->request("POST", "/v1/uploads", m_alice, tar, {{"Content-Type", "application/x-tar"}});
    QCOMPARE(answer.status, 400);
    QCOMPARE(answer.errorCode(), QString("invalid_upload"));
    QCOMPARE(QDir(m_server->dataDir() + "/data/uploads").entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
             uploadsBefore);
    QVERIFY(!QFile::exists(m_server->dataDir() + "/data/escape.txt") && !QFile::exists("/tmp/escape.txt"));
    QVERIFY(QDir(m_server->dataDir() + "/data/incoming").isEmpty());
}

void TestWarrend::idempotencyKeyCreatesOnce() {
    const QString uploadId = upload(m_alice, workspace());
    const QByteArray body = taskBody(uploadId, kScriptWritingDocs);
    const QList<std::pair<QByteArray, QByteArray>> key{{"Idempotency-Key", "retry-me-1"}};
    const HttpAnswer first = m_server->request("POST", "/v1/tasks", m_alice, body, key);
    QCOMPARE(first.status, 201);
    const HttpAnswer again = m_server->request("POST", "/v1/tasks", m_alice, body, key);
    QCOMPARE(again.status, 200);
    QCOMPARE(again.json().value("id", ""), first.json().value("id", ""));
    const HttpAnswer other =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(uploadId, kScriptAsking, kSafeMode), key);
    QCOMPARE(other.status, 422);
    QCOMPARE(other.errorCode(), QString("idempotency_conflict"));
    // Bob's use of the same key is his own.
    const QString bobs = upload(m_bob, workspace());
    const HttpAnswer his =
        m_server->request("POST", "/v1/tasks", m_bob, taskBody(bobs, kScriptWritingDocs), key);
    QCOMPARE(his.status, 201);
    m_server->streamEvents(QString::fromStdString(first.json().value("id", "")), m_alice, "task_finished");
    m_server->streamEvents(QString::fromStdString(his.json().value("id", "")), m_bob, "task_finished");
}

void TestWarrend::concurrencyQuotaAnswers429() {
    const QString carol = m_server->addUser("carol", "small");
    QCOMPARE(m_server->admin({"set-quota", "--user", "carol", "--max-concurrent", "0"}).exitCode, 0);
    const QString uploadId = upload(carol, workspace());
    const HttpAnswer refused =
        m_server->request("POST", "/v1/tasks", carol, taskBody(uploadId, kScriptWritingDocs));
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.errorCode(), QString("quota_exceeded"));
    QVERIFY(!refused.header("Retry-After").isEmpty());
    QVERIFY(taskIds(carol).isEmpty());
    // Others are not affected.
    const HttpAnswer alices =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(m_aliceUpload, kScriptWritingDocs));
    QCOMPARE(alices.status, 201);
    m_server->streamEvents(QString::fromStdString(alices.json().value("id", "")), m_alice, "task_finished");
}

// Over the concurrency quota, "queue": true makes the task wait for a slot: it starts when the task holding
// the slot ends, not before, and not when the server is killed and restarted meanwhile; cancelled while it
// waits, it never starts. Without "queue" the same request is refused.
void TestWarrend::queuedTasksWaitForASlot() {
    const QString erin = m_server->addUser("erin", "queueing");
    QCOMPARE(m_server->admin({"set-quota", "--user", "erin", "--max-concurrent", "1"}).exitCode, 0);
    const QString uploadId = upload(erin, workspace());
    const auto idOf = [](const HttpAnswer& answer) {
        return QString::fromStdString(answer.json().value("id", ""));
    };
    const auto statusOf = [&](const QString& task) {
        return QString::fromStdString(
            m_server->request("GET", "/v1/tasks/" + task, erin).json().value("status", ""));
    };
    const auto eventCount = [&](const QString& task) {
        return m_server->request("GET", "/v1/tasks/" + task + "/events", erin)
            .json()
            .value("events", json::array())
            .size();
    };

    const HttpAnswer holding =
        m_server->request("POST", "/v1/tasks", erin, taskBody(uploadId, kScriptAsking, kSafeMode));
    QCOMPARE(holding.status, 201);
    const QString first = idOf(holding);
    auto asked = untilQuestion(*m_server, first, erin); // it holds erin's one slot, waiting for her answer
    QVERIFY(!asked.empty());

    const QByteArray queued = taskBody(uploadId, kScriptWritingDocs, R"(, "queue": true)");
    const HttpAnswer waiting = m_server->request("POST", "/v1/tasks", erin, queued);
    QVERIFY2(waiting.status == 201, waiting.body.constData());
    QCOMPARE(QString::fromStdString(waiting.json().value("status", "")), QString("queued"));
    const QString second = idOf(waiting);
    const HttpAnswer cancelled = m_server->request("POST", "/v1/tasks", erin, queued);
    QCOMPARE(cancelled.status, 201);
    const QString third = idOf(cancelled);
    QCOMPARE(m_server->request("POST", "/v1/tasks/" + third + "/cancel", erin).status, 202);
    QCOMPARE(statusOf(third), QString("cancelled"));
    const HttpAnswer refused =
        m_server->request("POST", "/v1/tasks", erin, taskBody(uploadId, kScriptWritingDocs));
    QCOMPARE(refused.status, 429);

    const std::string callId = asked.back()["data"].value("id", "");
    m_server->kill(); // the slot's holder is resumed on restart; the waiting task keeps waiting
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    // Its question stays open across the kill (no second approval_requested): the resumed agent asks it
    // again, and the question endpoint says so once it has.
    const QString question = "/v1/tasks/" + first + "/approvals/" + QString::fromStdString(callId);
    QCOMPARE(m_server->request("GET", question, erin).status, 200);
    QCOMPARE(statusOf(second), QString("queued"));
    QCOMPARE(eventCount(second), std::size_t{0});

    QCOMPARE(m_server
                 ->request("POST", "/v1/tasks/" + first + "/approvals/" + QString::fromStdString(callId),
                           erin, R"({"approved": true})")
                 .status,
             202);
    const auto firstEvents = m_server->streamEvents(first, erin, "task_finished");
    QVERIFY(!firstEvents.empty());
    const auto secondEvents = m_server->streamEvents(second, erin, "task_finished"); // it got the slot
    QVERIFY2(!secondEvents.empty(), m_server->serverOutput().constData());
    QCOMPARE(QString::fromStdString(secondEvents.front().value("type", "")), QString("limits_applied"));
    QCOMPARE(QString::fromStdString(secondEvents.back()["data"].value("reason", "")), QString("finished"));
    QCOMPARE(statusOf(third), QString("cancelled"));
    QCOMPARE(eventCount(third), std::size_t{0});
}

void TestWarrend::limitsAreClampedAndComeFirst() {
    const QString dave = m_server->addUser("dave", "clamped");
    QCOMPARE(
        m_server->admin({"set-quota", "--tenant", "clamped", "--memory-mb", "256", "--pids", "512"}).exitCode,
        0);
    QCOMPARE(m_server->admin({"set-quota", "--user", "dave", "--pids", "128"}).exitCode, 0);
    const QString uploadId = upload(dave, workspace());
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", dave,
                          taskBody(uploadId, kScriptWritingDocs,
                                   R"(, "limits": {"memory_mb": 1024, "pids": 200, "timeout_sec": 600})"));
    QVERIFY2(created.status == 201, created.body.constData());
    const auto events =
        m_server->streamEvents(QString::fromStdString(created.json().value("id", "")), dave, "task_finished");
    QVERIFY(!events.empty());
    const json first = events.front();
    QCOMPARE(QString::fromStdString(first.value("type", "")), QString("limits_applied"));
    QCOMPARE(first["data"]["limits"].value("memory_mb", 0u), 256u);
    QCOMPARE(QString::fromStdString(first["data"]["decided_by"].value("memory_mb", "")), QString("tenant"));
    QCOMPARE(first["data"]["limits"].value("pids", 0u), 128u);
    QCOMPARE(QString::fromStdString(first["data"]["decided_by"].value("pids", "")), QString("user"));
    QCOMPARE(first["data"]["limits"].value("timeout_sec", 0u), 600u);
    QCOMPARE(QString::fromStdString(first["data"]["decided_by"].value("timeout_sec", "")),
             QString("request"));
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));
}

// The caller's MCP servers (warren run --mcp-config, the window's Settings) come as the mcp_servers setting,
// an object: the task is created, the agent has them, and a server that cannot start is an event while the
// task ends well. A value of no type a setting takes is still refused.
void TestWarrend::theCallersMcpServersReachTheTask() {
    const QString uploadId = upload(m_alice, workspace());
    const json servers = {{"tracker", {{"command", "no-such-mcp-server-anywhere"}, {"args", {"--stdio"}}}}};
    const HttpAnswer created = m_server->request(
        "POST", "/v1/tasks", m_alice,
        taskBody(uploadId, kScriptWritingDocs, ", \"settings\": {\"mcp_servers\": " + QByteArray::fromStdString(servers.dump()) + "}"));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString task = QString::fromStdString(created.json().value("id", ""));
    const auto events = m_server->streamEvents(task, m_alice, {});
    QVERIFY(!events.empty());
    const std::string streamed = json(events).dump(1);
    bool configured = false, reported = false;
    for (const json& event : events) {
        if (event.value("type", "") == "task_started")
            configured = event["data"]["config"].value("mcp_servers", json()) == servers;
        if (event.value("type", "") == "error")
            reported = reported || event["data"].value("message", "").find("MCP server \"tracker\"") == 0;
    }
    QVERIFY2(configured && reported, streamed.c_str());
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));

    const HttpAnswer refused = m_server->request(
        "POST", "/v1/tasks", m_alice, taskBody(uploadId, kScriptWritingDocs, R"(, "settings": {"mcp_servers": ["tracker"]})"));
    QCOMPARE(refused.status, 400);
    QVERIFY2(refused.body.contains("mcp_servers"), refused.body.constData());
}

// Sub-agents through the server: their events reach the store and the stream with the agent that made them,
// their files the task's patch, and the resource report counts them; another user sees none of it.
void TestWarrend::subAgentsRunOnTheServer() {
    const QString uploadId = upload(m_alice, workspace());
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice,
                          taskBody(uploadId, kScriptWithSubAgents, R"(, "settings": {"max_subagents": 2})"));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString task = QString::fromStdString(created.json().value("id", ""));
    // To the stream's end: the run is over, so the stored events and the workspace are final.
    const auto events = m_server->streamEvents(task, m_alice, {});
    QVERIFY(!events.empty());
    QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));
    std::map<std::string, std::string> changedBy; // path -> agent
    std::set<std::string> started;
    for (const json& event : events) {
        if (event.value("type", "") == "agent_started")
            started.insert(event.value("agent", ""));
        if (event.value("type", "") == "file_changed")
            changedBy[event["data"].value("path", "")] = event.value("agent", "");
    }
    const std::string streamed = json(events).dump(1);
    QVERIFY2(started == (std::set<std::string>{"agent-1", "agent-2"}), streamed.c_str());
    QVERIFY2(changedBy ==
                 (std::map<std::string, std::string>{{"docs/one.md", "agent-1"}, {"docs/two.md", "agent-2"}}),
             streamed.c_str());
    // The stored events are the streamed ones, agents included.
    const HttpAnswer page = m_server->request("GET", "/v1/tasks/" + task + "/events", m_alice);
    QVERIFY2(page.json()["events"] == json(events), (page.body.toStdString() + "\nstreamed: " + streamed).c_str());

    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + task + "/patch", m_alice);
    QVERIFY2(patch.body.contains("b/docs/one.md") && patch.body.contains("b/docs/two.md"),
             qPrintable(QString::number(patch.status) + " " + patch.error + " " + patch.body + "\nstreamed: " +
                        QString::fromStdString(streamed)));
    const HttpAnswer report =
        m_server->request("GET", "/v1/tasks/" + task + "/artifacts/resource_report.json", m_alice);
    QCOMPARE(report.status, 200);
    QCOMPARE(report.json()["subagents"].value("started", 0), 2);
    for (const QString& path : {"/v1/tasks/" + task + "/events", "/v1/tasks/" + task + "/patch"})
        QCOMPARE(m_server->request("GET", path, m_bob).status, 404);
}

// kill -9 while the task waits for its owner: the restarted server resumes it, the stream continues from
// the client's Last-Event-ID with every later event exactly once, and the owner's answer finishes it.
void TestWarrend::approvalsSurviveAKilledServer() {
    const QString uploadId = upload(m_alice, workspace());
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(uploadId, kScriptAsking, kSafeMode));
    QCOMPARE(created.status, 201);
    const QString task = QString::fromStdString(created.json().value("id", ""));
    auto before = m_server->streamEvents(task, m_alice, "approval_requested"); // docs/a.md's, before the kill
    QVERIFY(!before.empty());
    QCOMPARE(QString::fromStdString(before.back().value("type", "")), QString("approval_requested"));

    m_server->kill();
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));

    auto after = untilQuestion(*m_server, task, m_alice, before.back().value("seq", 0u));
    QVERIFY2(!after.empty(), m_server->serverOutput().constData());
    const std::string callId = after.back()["data"].value("id", "");
    QVERIFY(!callId.empty());
    const QString approval = "/v1/tasks/" + task + "/approvals/" + QString::fromStdString(callId);
    QCOMPARE(m_server->request("POST", approval, m_bob, R"({"approved": true})").status, 404);
    QCOMPARE(m_server->request("POST", approval, m_alice, R"({"approved": true, "note": "fine"})").status,
             202);
    const QByteArray resumeId = QByteArray::number(static_cast<qulonglong>(after.back().value("seq", 0u)));
    // To the stream's end, not to task_finished: the run's patch is made as it ends, after its last event.
    auto rest = m_server->streamEvents(task, m_alice, {}, resumeId);
    QVERIFY(!rest.empty());
    QCOMPARE(QString::fromStdString(rest.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(rest.back()["data"].value("reason", "")), QString("finished"));

    std::vector<json> all = before;
    all.insert(all.end(), after.begin(), after.end());
    all.insert(all.end(), rest.begin(), rest.end());
    QVERIFY2(dense(seqsOf(all)), "every event exactly once, in order, across the kill");
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + task + "/patch", m_alice);
    QVERIFY2(patch.body.contains("+asked"),
             qPrintable(QString("status %1: %2").arg(patch.status).arg(QString::fromUtf8(patch.body))));
}

// A reply: refused while the task runs (it waits for its owner's answer), refused empty or oversized, then
// the ended task goes on from its checkpoint with the message, in its own workspace, to a second finish.
// "attended": true: a reply of the model without a tool call ends the run waiting for its owner, not nudged.
void TestWarrend::anAttendedTaskWaitsForItsOwner() {
    const QString uploadId = upload(m_alice, workspace());
    const QByteArray asking = R"({"turns": [{"content": "Which file should I write?"},
      {"tool_calls": [{"name": "finish", "arguments": {"summary": "unreachable"}}]}]})";
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(uploadId, asking, R"(, "attended": true)"));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString task = QString::fromStdString(created.json().value("id", ""));
    const auto events = m_server->streamEvents(task, m_alice, {});
    QVERIFY(!events.empty());
    QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("waiting"));
    for (const auto& event : events)
        QVERIFY(event.value("type", "") != "guard");
    const json record = m_server->request("GET", "/v1/tasks/" + task, m_alice).json();
    QCOMPARE(QString::fromStdString(record.value("status", "")), QString("waiting"));
    QCOMPARE(QString::fromStdString(record.value("summary", "")), QString("Which file should I write?"));
}

void TestWarrend::repliesContinueAnEndedTask() {
    const QString uploadId = upload(m_alice, workspace());
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(uploadId, kScriptReplied, kSafeMode));
    QCOMPARE(created.status, 201);
    const QString task = QString::fromStdString(created.json().value("id", ""));
    const QString replyPath = "/v1/tasks/" + task + "/reply";
    auto events = untilQuestion(*m_server, task, m_alice);
    QVERIFY(!events.empty());
    const HttpAnswer whileRunning = m_server->request("POST", replyPath, m_alice, R"({"message": "also b"})");
    QCOMPARE(whileRunning.status, 409);
    QVERIFY2(whileRunning.body.contains("is running"), whileRunning.body.constData());

    const std::string callId = events.back()["data"].value("id", "");
    QCOMPARE(m_server->request("POST", "/v1/tasks/" + task + "/approvals/" + QString::fromStdString(callId), m_alice,
                               R"({"approved": true})")
                 .status,
             202);
    // To the stream's end: the task's record says how it ended once the stream has ended.
    auto rest = m_server->streamEvents(task, m_alice, {},
                                       QByteArray::number(static_cast<qulonglong>(events.back().value("seq", 0u))));
    QVERIFY(!rest.empty());
    QCOMPARE(QString::fromStdString(rest.back()["data"].value("reason", "")), QString("finished"));
    const auto lastSeq = rest.back().value("seq", std::uint64_t{0});

    for (const QByteArray& bad : {QByteArray(R"({"message": " \n"})"), QByteArray(R"({"message": 3})"),
                                  QByteArray(R"({"message": "x", "extra": 1})"),
                                  R"({"message": ")" + QByteArray(256 * 1024 + 1, 'a') + R"("})"}) {
        const HttpAnswer refused = m_server->request("POST", replyPath, m_alice, bad);
        QVERIFY2(refused.status == 400, refused.body.left(300).constData());
        QCOMPARE(refused.errorCode(), QString("invalid_request"));
    }
    QCOMPARE(QString::fromStdString(m_server->request("GET", "/v1/tasks/" + task, m_alice).json().value("status", "")),
             QString("succeeded"));

    const HttpAnswer replied =
        m_server->request("POST", replyPath, m_alice, R"({"message": "Please also write docs/b.md"})");
    QVERIFY2(replied.status == 202, replied.body.constData());
    const auto after = m_server->streamEvents(task, m_alice, {}, QByteArray::number(static_cast<qulonglong>(lastSeq)));
    QVERIFY(!after.empty());
    QCOMPARE(after.front().value("seq", std::uint64_t{0}), lastSeq + 1);
    std::vector<json> said;
    for (const auto& event : after)
        if (event.value("type", "") == "user_message")
            said.push_back(event);
    QCOMPARE(said.size(), std::size_t{1});
    QCOMPARE(said.front()["data"].value("text", ""), std::string("Please also write docs/b.md"));
    QCOMPARE(QString::fromStdString(after.back()["data"].value("summary", "")), QString("wrote docs/b.md too"));
    QCOMPARE(QString::fromStdString(m_server->request("GET", "/v1/tasks/" + task, m_alice).json().value("status", "")),
             QString("succeeded"));
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + task + "/patch", m_alice);
    QVERIFY2(patch.body.contains("+asked") && patch.body.contains("b/docs/b.md"), patch.body.constData());
}

// GET /v1/ready (a readiness probe, no key): 200 while warrend reaches its database, 503 saying so while it
// does not, and 200 again once it does.
void TestWarrend::readyOnlyWithItsDatabase() {
    QCOMPARE(m_server->request("GET", "/v1/ready", {}).status, 200);
    QString error;
    QVERIFY2(m_server->postgres().stop(&error), qPrintable(error));
    const HttpAnswer down = m_server->request("GET", "/v1/ready", {});
    QVERIFY2(m_server->postgres().restart(&error), qPrintable(error));
    QVERIFY2(down.status == 503, down.body.constData());
    QCOMPARE(down.errorCode(), QString("unavailable"));
    QCOMPARE(m_server->request("GET", "/v1/ready", {}).status, 200);
}

// PostgreSQL restarts while a task runs: the server keeps its events, and the stream resumes.
void TestWarrend::eventsSurviveADatabaseRestart() {
    const QString uploadId = upload(m_alice, workspace());
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(uploadId, kScriptAsking, kSafeMode));
    QCOMPARE(created.status, 201);
    const QString task = QString::fromStdString(created.json().value("id", ""));
    auto before = untilQuestion(*m_server, task, m_alice);
    QVERIFY(!before.empty());
    QString error;
    QVERIFY2(m_server->postgres().restart(&error), qPrintable(error));

    const std::string callId = before.back()["data"].value("id", "");
    const QString approval = "/v1/tasks/" + task + "/approvals/" + QString::fromStdString(callId);
    // The server's connections notice the restart before they are used again: no request fails for it.
    const HttpAnswer answered = m_server->request("POST", approval, m_alice, R"({"approved": true})");
    QVERIFY2(answered.status == 202, answered.body.constData());
    const QByteArray lastId = QByteArray::number(static_cast<qulonglong>(before.back().value("seq", 0u)));
    auto rest = m_server->streamEvents(task, m_alice, "task_finished", lastId);
    QVERIFY(!rest.empty());
    std::vector<json> all = before;
    all.insert(all.end(), rest.begin(), rest.end());
    QVERIFY(dense(seqsOf(all)));
    QCOMPARE(QString::fromStdString(rest.back()["data"].value("reason", "")), QString("finished"));
}

// warrend holds the operator's and the users' keys: a crash writes no core file with them in it. And it
// raised the soft limit of open files it was started with (1,024 here, as systemd starts services) to the
// hard one, so that hundreds of tasks' descriptors fit.
void TestWarrend::holdsNoCoreFileAndRoomForManyTasks() {
    QFile limits("/proc/" + QString::number(m_server->processId()) + "/limits");
    QVERIFY2(limits.open(QIODevice::ReadOnly), qPrintable(limits.errorString()));
    QMap<QString, QStringList> byName; // "Max core file size" -> {soft, hard, unit}
    for (const QByteArray& line : limits.readAll().split('\n')) {
        const QString text = QString::fromUtf8(line);
        if (text.size() > 26 && text.startsWith("Max "))
            byName[text.left(26).trimmed()] = text.mid(26).split(' ', Qt::SkipEmptyParts);
    }
    QCOMPARE(byName.value("Max core file size").mid(0, 2), (QStringList{"0", "0"}));
    const QStringList files = byName.value("Max open files");
    QCOMPARE(files.size(), 3);
    QCOMPARE(files[0], files[1]);
}

// Past its retention period (the tenant's quota, shorter than serve's), a finished task's workspace copy,
// checkpoints and artifacts go at the next start's sweep; its record says when and its events stay; what
// needed them answers 410 or refuses with that reason. Another user's and a recent task keep everything.
void TestWarrend::aFinishedTasksFilesGoAfterItsRetention() {
    const QString old = m_aliceTask; // finished in runsATaskFromAnUpload
    QVERIFY(!old.isEmpty());
    const QString recent = m_server->createTask(m_alice, taskBody(m_aliceUpload, kScriptWritingDocs));
    QVERIFY(!recent.isEmpty());
    QVERIFY(!m_server->streamEvents(recent, m_alice, {}).empty());
    const QString bobUpload = upload(m_bob, workspace());
    const QString bobs = m_server->createTask(m_bob, taskBody(bobUpload, kScriptWritingDocs));
    QVERIFY(!bobs.isEmpty());
    QVERIFY(!m_server->streamEvents(bobs, m_bob, {}).empty());
    const QString data = m_server->dataDir() + "/data"; // serve's --data-dir
    for (const QString& task : {old, recent, bobs})
        QVERIFY2(QDir(data + "/workspaces/" + task).exists(), qPrintable(task));

    // Alice's first task ended 40 days ago, Bob's too; alice's quota keeps 30 days, bob has only serve's 365.
    QCOMPARE(m_server->admin({"set-quota", "--user", "alice", "--retention-days", "30"}).exitCode, 0);
    {
        auto db = warren::control::PgConnection::open(m_server->databaseUrl().toStdString());
        QVERIFY2(db, db ? "" : db.error().message.c_str());
        for (const QString& task : {old, bobs})
            QVERIFY(db->exec("age a task",
                             "UPDATE tasks SET finished_at = to_char((now() - interval '40 days') AT "
                             "TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') WHERE id = $1",
                             warren::control::pgParams(task.toStdString())));
    }
    m_server->stop();
    QString error;
    QVERIFY2(m_server->start(&error, {"--retention-days", "365"}, true), qPrintable(error));

    const auto removedAt = [&](const QString& task, const QString& key) {
        return QString::fromStdString(
            m_server->request("GET", "/v1/tasks/" + task, key).json().value("removed_at", "?"));
    };
    QTRY_VERIFY_WITH_TIMEOUT(!removedAt(old, m_alice).isEmpty() && removedAt(old, m_alice) != "?", 30000);
    QVERIFY(!QDir(data + "/workspaces/" + old).exists());
    QVERIFY(!QDir(data + "/tasks/" + old + "/state").exists());
    QVERIFY(!QDir(data + "/tasks/" + old + "/output").exists());
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + old + "/patch", m_alice);
    QCOMPARE(patch.status, 410);
    QCOMPARE(patch.errorCode(), QString("removed"));
    QVERIFY2(patch.body.contains("retention period"), patch.body.constData());
    const HttpAnswer reply =
        m_server->request("POST", "/v1/tasks/" + old + "/reply", m_alice, R"({"message": "more"})");
    QVERIFY2(reply.status == 400 && reply.body.contains("retention period"), reply.body.constData());
    const HttpAnswer events = m_server->request("GET", "/v1/tasks/" + old + "/events", m_alice);
    QVERIFY(!events.json()["events"].empty()); // the record and events stay
    QCOMPARE(QString::fromStdString(
                 m_server->request("GET", "/v1/tasks/" + old, m_alice).json().value("status", "")),
             QString("succeeded"));

    QCOMPARE(removedAt(recent, m_alice), QString());
    QCOMPARE(removedAt(bobs, m_bob), QString()); // 40 days < serve's 365, and bob has no quota of it
    QVERIFY(QDir(data + "/workspaces/" + recent).exists());
    QVERIFY(QDir(data + "/workspaces/" + bobs).exists());
    QCOMPARE(m_server->request("GET", "/v1/tasks/" + bobs + "/patch", m_bob).status, 200);

    QCOMPARE(m_server->admin({"set-quota", "--user", "alice", "--clear", "retention_days"}).exitCode, 0);
    m_server->stop();
    QVERIFY2(m_server->start(&error, {}, true), qPrintable(error));
}

// disk_mb: an upload, and a task's copy of an upload, that would take a user past it are refused with 429
// before anything is written, saying what frees it; under it they are taken; the quota cleared, the task is.
void TestWarrend::theDiskQuotaRefusesWhatWouldExceedIt() {
    const QString dana = m_server->addUser("dana");
    QVERIFY(!dana.isEmpty());
    QCOMPARE(m_server->admin({"set-quota", "--user", "dana", "--disk-mb", "1"}).exitCode, 0);
    const QString project = workspace();
    QFile big(project + "/data.bin");
    QVERIFY(big.open(QIODevice::WriteOnly));
    QByteArray noise(700 * 1024, '\0');
    for (int i = 0; i < noise.size(); ++i)
        noise[i] = static_cast<char>((i * 7919) ^ (i >> 8)); // written blocks, not a hole
    big.write(noise);
    big.close();
    const QString uploads = m_server->dataDir() + "/data/uploads";
    const auto count = [](const QString& dir) {
        return QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size();
    };

    const QString first = upload(dana, project); // 0.7 of 1 MiB
    QVERIFY(!first.isEmpty());
    const auto uploadsBefore = count(uploads);
    const auto workspacesBefore = count(m_server->dataDir() + "/data/workspaces");
    const HttpAnswer second = m_server->request("POST", "/v1/uploads", dana, tarOf(project),
                                                {{"Content-Type", "application/x-tar"}});
    QCOMPARE(second.status, 429);
    QCOMPARE(second.errorCode(), QString("quota_exceeded"));
    QVERIFY2(second.body.contains("disk_mb (1) would be exceeded") &&
                 second.body.contains("retention period"),
             second.body.constData());
    QCOMPARE(count(uploads), uploadsBefore); // nothing kept of it

    const HttpAnswer task = m_server->request("POST", "/v1/tasks", dana, taskBody(first, kScriptWritingDocs));
    QCOMPARE(task.status, 429);
    QVERIFY2(task.body.contains("disk_mb"), task.body.constData());
    QCOMPARE(count(m_server->dataDir() + "/data/workspaces"), workspacesBefore);
    QVERIFY(taskIds(dana).isEmpty());

    QCOMPARE(m_server->admin({"set-quota", "--user", "dana", "--clear", "disk_mb"}).exitCode, 0);
    const QString made = m_server->createTask(dana, taskBody(first, kScriptWritingDocs));
    QVERIFY(!made.isEmpty());
    QVERIFY(!m_server->streamEvents(made, dana, {}).empty());
}

QTEST_MAIN(TestWarrend)
#include "tst_warrend.moc"
