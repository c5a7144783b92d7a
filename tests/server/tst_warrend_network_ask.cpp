// `--network ask` on warrend (DESIGN §12), performed against a real warrend on its own PostgreSQL and an HTTP
// server in the test (reached by name through the operator's --resolve and --allow-internal): a task's request
// to a host it does not list waits while its owner is asked through the approvals API; another user can
// neither see nor answer the question; the owner's answer lets the request through, as the task's events
// show; a refusal is what the agent's tool reads.
#include "tests/support/HostHttpServer.h"
#include "tests/support/WarrendServer.h"

#include <QStandardPaths>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

json shellTurn(const std::string& command) {
    return {{"tool_calls", json::array({{{"name", "shell"}, {"arguments", {{"command", command}}}}})}};
}

json finishTurn() {
    return {{"tool_calls", json::array({{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}})}};
}

std::string outputOf(const std::vector<json>& events) {
    for (const auto& event : events)
        if (event.value("type", "") == "tool_result")
            return event["data"].value("output", "");
    return "(no tool result)";
}

} // namespace

class TestWarrendNetworkAsk : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void theOwnerAnswersTheQuestion_data();
    void theOwnerAnswersTheQuestion();

private:
    QString m_host;
    std::unique_ptr<HostHttpServer> m_web;
    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_scratch;
    QString m_alice, m_bob, m_upload;
};

void TestWarrendNetworkAsk::initTestCase() {
    if (QStandardPaths::findExecutable("curl").isEmpty())
        QSKIP("needs curl (packaging/install-deps.sh)");
    m_web = std::make_unique<HostHttpServer>();
    QVERIFY(m_web->port() != 0);
    m_host = "asked.example.test:" + QString::number(m_web->port());
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice");
    m_bob = m_server->addUser("bob");
    QVERIFY2(m_server->start(&error, {"--resolve", m_host + ":127.0.0.1", "--allow-internal",
                                      "127.0.0.1:" + QString::number(m_web->port())}),
             qPrintable(error));
    QVERIFY(QDir().mkpath(m_scratch.filePath("ws")));
    m_upload = m_server->upload(m_alice, m_scratch.filePath("ws"));
    QVERIFY(!m_upload.isEmpty());
}

void TestWarrendNetworkAsk::theOwnerAnswersTheQuestion_data() {
    QTest::addColumn<bool>("approved");
    QTest::newRow("allowed") << true;
    QTest::newRow("refused") << false;
}

void TestWarrendNetworkAsk::theOwnerAnswersTheQuestion() {
    QFETCH(bool, approved);
    const int connectionsBefore = m_web->connections;
    const std::string url = "http://" + m_host.toStdString() + "/" + (approved ? "allowed" : "refused");
    const json script{{"turns", json::array({shellTurn("curl -sS --noproxy '' --max-time 100 " + url + " 2>&1"),
                                              finishTurn()})}};
    const HttpAnswer created = m_server->request(
        "POST", "/v1/tasks", m_alice,
        QByteArray::fromStdString(
            json{{"prompt", "fetch"}, {"workspace", m_upload.toStdString()}, {"script", script}, {"network", "ask"}}
                .dump()));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString task = QString::fromStdString(created.json().value("id", ""));

    const auto asked = m_server->streamEvents(task, m_alice, "approval_requested");
    QVERIFY(!asked.empty());
    const json& question = asked.back();
    QCOMPARE(question.value("tool", ""), "network");
    QCOMPARE(question["data"]["arguments"].value("host", ""), "asked.example.test");
    const QString call = QString::fromStdString(question["data"].value("id", ""));
    const QString approvalPath = "/v1/tasks/" + task + "/approvals/" + call;
    QCOMPARE(m_web->connections, connectionsBefore); // held while the owner is asked

    // Another user sees neither the task nor its question, and cannot answer it.
    QCOMPARE(m_server->request("GET", approvalPath, m_bob).status, 404);
    QCOMPARE(m_server->request("POST", approvalPath, m_bob, R"({"approved": true})").status, 404);
    const HttpAnswer waiting = m_server->request("GET", approvalPath, m_alice);
    QVERIFY2(waiting.status == 200 && waiting.json().value("waiting", false), waiting.body.constData());

    const HttpAnswer answered = m_server->request(
        "POST", approvalPath, m_alice, QByteArray::fromStdString(json{{"approved", approved}, {"note", "checked"}}.dump()));
    QVERIFY2(answered.status == 202, answered.body.constData());
    const auto events = m_server->streamEvents(task, m_alice, {});
    const std::string output = outputOf(events);
    if (approved) {
        QCOMPARE(QString::fromStdString(output), "hello from the host: GET /allowed HTTP/1.1\n");
    } else {
        QVERIFY2(output.find("the user refused " + m_host.toStdString() + " for this task: checked") !=
                     std::string::npos,
                 output.c_str());
        QVERIFY(!m_web->requests.contains("GET /refused HTTP/1.1"));
    }
    const auto resolved = std::find_if(events.begin(), events.end(), [](const json& event) {
        return event.value("type", "") == "approval_resolved" && event.value("tool", "") == "network";
    });
    QVERIFY(resolved != events.end());
    QCOMPARE((*resolved)["data"].value("approved", !approved), approved);
    QCOMPARE((*resolved)["data"].value("decided_by", ""), "user");
}

QTEST_GUILESS_MAIN(TestWarrendNetworkAsk)
#include "tst_warrend_network_ask.moc"
