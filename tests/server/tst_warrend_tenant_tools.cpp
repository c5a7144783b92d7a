// What an operator gives every user of a tenant on warrend (DESIGN §13), performed against a real warrend on
// its own PostgreSQL with real sandboxes: the tenant's MCP servers (`warrend admin set-mcp-servers`) start in
// its users' tasks' sandboxes and in no other tenant's, and no API answer shows their headers' or
// environment's values; the tenant's skills (`warrend admin install-skills`) are offered to its users' tasks,
// read-only, and a pack installed while a task runs is offered at the task's next step; another tenant's user
// gets neither.
#include "tests/support/EventJson.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

// Values the operator's file holds that no user may read through the API.
const std::string kHeaderValue = "Bearer acme-header-value-5e1f0c";
const std::string kEnvValue = "acme-env-value-9d2b7a";

bool write(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

json call(const std::string& tool, json arguments) {
    return {{"tool_calls", json::array({{{"name", tool}, {"arguments", std::move(arguments)}}})}};
}

QByteArray taskBody(const QString& upload, const json& turns, const json& more = json::object()) {
    json body{{"prompt", "use what your tenant gives you"},
              {"workspace", upload.toStdString()},
              {"script", {{"turns", turns}}}};
    body.update(more);
    return QByteArray::fromStdString(body.dump());
}

bool anyEventHolds(const std::vector<json>& events, const std::string& text) {
    return std::any_of(events.begin(), events.end(),
                       [&](const json& event) { return event.dump().find(text) != std::string::npos; });
}

// The agent's log events about its skills ("skills offered: ...", "skills changed: ..."), in order.
std::vector<json> skillNotices(const std::vector<json>& events) {
    std::vector<json> notices;
    for (const auto& event : events)
        if (event.value("type", "") == "log" && (event.dump().find("skills offered") != std::string::npos ||
                                                 event.dump().find("skills changed") != std::string::npos))
            notices.push_back(event);
    return notices;
}

} // namespace

class TestWarrendTenantTools : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void aTenantsMcpServersStartInItsUsersSandboxesAlone();
    void noAnswerShowsATenantServersValues();
    void aSkillInstalledWhileATaskRunsIsOfferedAtItsNextStep();
    void anotherTenantsUserGetsNoneOfTheSkills();

private:
    QString path(const QString& name) const { return m_scratch.filePath(name); }
    QString dataDir() const { return m_server->dataDir() + "/data"; } // warrend serve --data-dir
    std::vector<json> run(const QString& key, const json& turns, const json& more = json::object());

    QTemporaryDir m_scratch;
    std::unique_ptr<WarrendServer> m_server;
    QString m_alice, m_bob; // tenants acme and globex
    QString m_aliceTask;
};

void TestWarrendTenantTools::initTestCase() {
    if (QStandardPaths::findExecutable("node").isEmpty())
        QSKIP("needs node (Node.js) on this machine, where the sandbox sees /usr");
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice", "acme");
    m_bob = m_server->addUser("bob", "globex");
    QVERIFY(m_alice.startsWith("wrn_") && m_bob.startsWith("wrn_"));
    QVERIFY2(m_server->start(&error), qPrintable(error));
    // The workspace both users upload holds the server's program; only acme's tasks are told to start it.
    QVERIFY(QDir().mkpath(path("ws")));
    QVERIFY(QFile::copy(qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/where-server.js",
                        path("ws/where-server.js")));
    const json servers = {{"probe",
                           {{"command", "node"},
                            {"args", {"where-server.js"}},
                            {"env", {{"PROBE", "acme's probe"}, {"ACME_KEY", kEnvValue}}}}},
                          {"tracker",
                           {{"type", "http"},
                            {"url", "https://tracker.acme.example/mcp"},
                            {"headers", {{"Authorization", kHeaderValue}}}}}};
    QVERIFY(write(path("acme.mcp.json"), QByteArray::fromStdString(json{{"mcpServers", servers}}.dump())));
    const AdminResult set = m_server->admin({"set-mcp-servers", "--tenant", "acme", path("acme.mcp.json")});
    QVERIFY2(set.exitCode == 0, set.err.constData());
}

std::vector<json> TestWarrendTenantTools::run(const QString& key, const json& turns, const json& more) {
    const QString upload = m_server->upload(key, path("ws"));
    const HttpAnswer created = m_server->request("POST", "/v1/tasks", key, taskBody(upload, turns, more));
    if (created.status != 201)
        qWarning("not created: %s", created.body.constData());
    const QString id = QString::fromStdString(created.json().value("id", ""));
    if (key == m_alice)
        m_aliceTask = id;
    return m_server->streamEvents(id, key, {});
}

// Alice's task (acme) starts acme's stdio server in its sandbox, with acme's environment for it, and calls
// its tool; Bob's (globex), with the same workspace and script, has no such server and no such tool.
void TestWarrendTenantTools::aTenantsMcpServersStartInItsUsersSandboxesAlone() {
    const json turns =
        json::array({call("mcp__probe__where", json::object()), call("finish", {{"summary", "probed"}})});
    const auto alices = run(m_alice, turns);
    QVERIFY(!alices.empty());
    QCOMPARE(alices.back().value("type", ""), std::string("task_finished"));
    const std::string output = toolOutput(alices, "call_0_0");
    const json where = json::parse(output, nullptr, false);
    QVERIFY2(where.is_object(), output.c_str());
    QCOMPARE(where.value("probe", ""), std::string("acme's probe"));
    QCOMPARE(where.value("cwd", ""), std::string("/workspace"));
    QVERIFY2(where.value("pid1", "").find("systemd") == std::string::npos, output.c_str());
    QVERIFY2(std::find(where["env"].begin(), where["env"].end(), "ACME_KEY") != where["env"].end(),
             output.c_str());
    // The remote one is acme's too: the agent says why it did not start it, naming no header.
    QVERIFY(anyEventHolds(alices, "MCP server \\\"tracker\\\""));

    const auto bobs = run(m_bob, turns);
    QVERIFY(!bobs.empty());
    const std::string bobsOutput = toolOutput(bobs, "call_0_0");
    QVERIFY2(!json::parse(bobsOutput, nullptr, false).is_object(), bobsOutput.c_str());
    QVERIFY2(bobsOutput.find("acme") == std::string::npos, bobsOutput.c_str());
    QVERIFY(!anyEventHolds(bobs, "probe\\\"") && !anyEventHolds(bobs, "tracker"));
}

// GET /v1/me/mcp-servers lists the caller's tenant's servers by name and transport; no answer a user gets
// (the list, the task, its events) holds a header's value, nor an environment value the server was not asked
// for.
void TestWarrendTenantTools::noAnswerShowsATenantServersValues() {
    const HttpAnswer alices = m_server->request("GET", "/v1/me/mcp-servers", m_alice);
    QCOMPARE(alices.status, 200);
    QCOMPARE(alices.json(), json({{"servers",
                                   {{{"name", "probe"}, {"transport", "stdio"}, {"scope", "tenant"}},
                                    {{"name", "tracker"}, {"transport", "http"}, {"scope", "tenant"}}}}}));
    const HttpAnswer bobs = m_server->request("GET", "/v1/me/mcp-servers", m_bob);
    QCOMPARE(bobs.status, 200);
    QCOMPARE(bobs.json(), json({{"servers", json::array()}}));
    QCOMPARE(m_server->request("GET", "/v1/me/mcp-servers", "wrn_not-a-key").status, 401);
    QVERIFY(!m_aliceTask.isEmpty());
    for (const QString& answer : {QString("/v1/me/mcp-servers"), QString("/v1/me"), QString("/v1/tasks"),
                                  "/v1/tasks/" + m_aliceTask, "/v1/tasks/" + m_aliceTask + "/events"}) {
        const HttpAnswer got = m_server->request("GET", answer, m_alice);
        QVERIFY2(got.status == 200, qPrintable(answer));
        for (const std::string& value : {kHeaderValue, kEnvValue})
            QVERIFY2(!got.body.contains(QByteArray::fromStdString(value)),
                     qPrintable(answer + ": " + got.body));
    }
}

// The task waits for its owner's answer (safe-mode asks before the shell); meanwhile the operator installs a
// pack; the step after the answer is offered the new skill and loads it, and cannot write into it.
void TestWarrendTenantTools::aSkillInstalledWhileATaskRunsIsOfferedAtItsNextStep() {
    const json turns = json::array(
        {call("shell", {{"command", "touch /opt/warren/skills/0/deploy-notes/extra 2>&1; echo status $?"}}),
         call("skill", {{"name", "deploy-notes"}}), call("finish", {{"summary", "read the skill"}})});
    const QString upload = m_server->upload(m_alice, path("ws"));
    const HttpAnswer created = m_server->request("POST", "/v1/tasks", m_alice,
                                                 taskBody(upload, turns, {{"presets", {"safe-mode"}}}));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString task = QString::fromStdString(created.json().value("id", ""));
    const auto before = m_server->streamEvents(task, m_alice, "approval_requested");
    QVERIFY(!before.empty());
    QCOMPARE(before.back().value("type", ""), std::string("approval_requested"));
    QVERIFY(skillNotices(before).empty()); // acme has no skill yet
    const std::uint64_t askedAt = before.back().value("step", 0u);

    QVERIFY(
        write(path("pack/deploy-notes/SKILL.md"), "---\nname: deploy-notes\ndescription: How acme "
                                                  "deploys\n---\nDeploy on Tuesdays: SKILL-BODY-4471.\n"));
    const AdminResult installed =
        m_server->admin({"install-skills", "--tenant", "acme", "--data-dir", dataDir(), path("pack")});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());

    const std::string callId = before.back()["data"].value("id", "");
    QCOMPARE(m_server
                 ->request("POST", "/v1/tasks/" + task + "/approvals/" + QString::fromStdString(callId),
                           m_alice, R"({"approved": true})")
                 .status,
             202);
    const auto after = m_server->streamEvents(
        task, m_alice, {}, QByteArray::number(static_cast<qulonglong>(before.back().value("seq", 0u))));
    QVERIFY(!after.empty());
    QCOMPARE(after.back().value("type", ""), std::string("task_finished"));
    const std::string touched = toolOutput(after, callId);
    QVERIFY2(touched.find("status 0") == std::string::npos, touched.c_str()); // read-only in the sandbox
    QVERIFY(!QFileInfo::exists(dataDir() + "/tenant-skills/acme/deploy-notes/extra"));
    const std::string loaded = toolOutput(after, "call_1_0");
    QVERIFY2(loaded.find("SKILL-BODY-4471") != std::string::npos, loaded.c_str());
    // Seen at the step after the one that waited, as a change of the task's skills.
    const auto notices = skillNotices(after);
    QVERIFY2(!notices.empty(), after.back().dump().c_str());
    QVERIFY2(notices.front().dump().find("deploy-notes") != std::string::npos,
             notices.front().dump().c_str());
    QCOMPARE(notices.front().value("step", 0u), askedAt + 1);
}

// Bob (globex) asks for acme's skill by name: there is none in his sandbox, and his tenant's folder is empty.
void TestWarrendTenantTools::anotherTenantsUserGetsNoneOfTheSkills() {
    QVERIFY(QFileInfo::exists(dataDir() + "/tenant-skills/acme/deploy-notes/SKILL.md"));
    const auto bobs = run(m_bob, json::array({call("skill", {{"name", "deploy-notes"}}),
                                              call("shell", {{"command", "ls -R /opt/warren/skills 2>&1"}}),
                                              call("finish", {{"summary", "looked"}})}));
    QVERIFY(!bobs.empty());
    QVERIFY(!anyEventHolds(bobs, "SKILL-BODY-4471"));
    QVERIFY(skillNotices(bobs).empty());
    const std::string listed = toolOutput(bobs, "call_1_0");
    QVERIFY2(listed.find("deploy-notes") == std::string::npos, listed.c_str());
    QVERIFY(QFileInfo(dataDir() + "/tenant-skills/globex").isDir()); // made at launch, mounted, empty
    QCOMPARE(QDir(dataDir() + "/tenant-skills/globex").entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
             QStringList());
}

QTEST_GUILESS_MAIN(TestWarrendTenantTools)
#include "tst_warrend_tenant_tools.moc"
