// What a task on warrend may make the server connect to, attacked for real: a real warrend holding
// server-wide keys, model servers and web servers on this machine's loopback standing in for a user's
// endpoint and for what lives inside the server's host (its database, a metadata service). A user who names
// such an endpoint as the task's provider never gets the server's key sent to it, and the server never
// connects inside for them (by address, by a name that resolves inside, or through a redirect) unless the
// operator's --allow-internal names the destination; a task's network allow-list reaches inside on the same
// terms (refused when the task is created, and again by the egress proxy when it connects).

#include "tests/support/EventJson.h"
#include "tests/support/WarrendServer.h"
#include "tests/support/HostHttpServer.h"
#include "tests/support/MockLlmServer.h"

#include <QFile>
#include <QHostInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

using namespace warren::test;
using nlohmann::json;

namespace {

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() &&
           ::chmod(QFile::encodeName(path).constData(), 0600) == 0;
}

QByteArray randomBytes(int words) {
    QByteArray bytes(words * 4, '\0');
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(bytes.data()), words);
    return bytes;
}

MockResponse finishTurn() {
    return MockResponse::sse(
        splitEvents(openAiToolCallStream("call_finish", "finish", {R"({"summary": "done"})"})));
}

// A script: one shell call per (id, command), then finish.
QByteArray shellScript(const std::vector<std::pair<std::string, std::string>>& calls) {
    json turns = json::array();
    for (const auto& [id, command] : calls) {
        json call{{"id", id}, {"name", "shell"}, {"arguments", json{{"command", command}}}};
        turns.push_back(json{{"tool_calls", json::array({call})}});
    }
    json finish{{"name", "finish"}, {"arguments", json{{"summary", "probed"}}}};
    turns.push_back(json{{"tool_calls", json::array({finish})}});
    return QByteArray::fromStdString(json{{"turns", turns}}.dump());
}

} // namespace

class TestWarrendDestinations : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void aUsersEndpointInsideIsRefusedAtCreation_data();
    void aUsersEndpointInsideIsRefusedAtCreation();
    void theServersKeyNeverGoesToAUsersEndpoint();
    void aNameThatResolvesInsideIsNotConnectedTo();
    void anAllowListInsideIsRefusedAtCreation_data();
    void anAllowListInsideIsRefusedAtCreation();
    void anAllowedNameThatResolvesInsideReachesNothing();
    void theOperatorsAllowanceOpensOnlyItsDestinations();
    void cleanupTestCase();

private:
    QByteArray taskBody(const QString& provider, const QString& network = "none",
                        const QByteArray& script = {});
    json runToEnd(const QByteArray& body, std::vector<json>* events = nullptr);
    void checkNoServerKeyAnywhere();
    bool restart(const QStringList& extra);

    std::unique_ptr<WarrendServer> m_server;
    MockLlmServer m_usersModel; // the user's endpoint on the server's loopback
    HostHttpServer m_inside;    // a service inside the server's host (its database, a metadata service)
    QTemporaryDir m_scratch;
    QString m_alice, m_upload, m_secretFile;
    QByteArray m_serverKeys[2], m_aliceKey;
    QByteArray m_seen; // every answer and event
};

void TestWarrendDestinations::initTestCase() {
    QVERIFY(m_usersModel.listen());
    QVERIFY(m_inside.port() != 0);
    m_serverKeys[0] = "sk-server-anthropic-" + randomBytes(4).toHex();
    m_serverKeys[1] = "sk-server-compatible-" + randomBytes(4).toHex();
    m_aliceKey = "sk-alice-" + randomBytes(4).toHex();
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_server->setEnvironment("ANTHROPIC_API_KEY", QString::fromLatin1(m_serverKeys[0]));
    m_server->setEnvironment("WARREN_OPENAI_COMPATIBLE_API_KEY", QString::fromLatin1(m_serverKeys[1]));
    m_secretFile = m_scratch.filePath("keys.secret");
    QVERIFY(writeFile(m_secretFile, randomBytes(8)));
    m_alice = m_server->addUser("alice");
    QVERIFY(m_alice.startsWith("wrn_"));
    QVERIFY2(restart({}), qPrintable(m_server->serverOutput()));
    const QString workspace = m_scratch.filePath("ws");
    QVERIFY(QDir().mkpath(workspace));
    QVERIFY(writeFile(workspace + "/README.md", "# project\n"));
    m_upload = m_server->upload(m_alice, workspace);
    QVERIFY(!m_upload.isEmpty());
}

void TestWarrendDestinations::cleanupTestCase() {
    checkNoServerKeyAnywhere();
}

bool TestWarrendDestinations::restart(const QStringList& extra) {
    if (m_server->processId() != 0)
        m_server->stop();
    QString error;
    return m_server->start(&error, QStringList{"--provider-key-secret", m_secretFile} + extra);
}

QByteArray TestWarrendDestinations::taskBody(const QString& provider, const QString& network,
                                             const QByteArray& script) {
    json body{{"prompt", "go"}, {"workspace", m_upload.toStdString()}, {"network", network.toStdString()}};
    if (!script.isEmpty())
        body["script"] = json::parse(script.toStdString());
    else
        body.update({{"provider", provider.toStdString()}, {"model", "m"}});
    return QByteArray::fromStdString(body.dump());
}

// Creates the task (201 expected) and reads its events to the end; the task's JSON then.
json TestWarrendDestinations::runToEnd(const QByteArray& body, std::vector<json>* events) {
    const HttpAnswer created = m_server->request("POST", "/v1/tasks", m_alice, body);
    m_seen += created.body;
    if (created.status != 201) {
        qWarning() << "create:" << created.status << created.body;
        return json();
    }
    const QString id = QString::fromStdString(created.json().value("id", ""));
    const auto streamed = m_server->streamEvents(id, m_alice, {});
    for (const json& event : streamed)
        m_seen += QByteArray::fromStdString(event.dump()) + "\n";
    if (events)
        *events = streamed;
    const HttpAnswer task = m_server->request("GET", "/v1/tasks/" + id, m_alice);
    m_seen += task.body;
    return task.json();
}

void TestWarrendDestinations::checkNoServerKeyAnywhere() {
    for (const QByteArray& key : m_serverKeys) {
        QVERIFY(!m_seen.contains(key));
        for (const RecordedRequest& request : m_usersModel.requests())
            for (const QByteArray& value : request.headers)
                QVERIFY2(!value.contains(key), value.constData());
        QVERIFY(!m_inside.received.contains(key));
    }
}

// A provider endpoint inside the server's host, in every spelling a user may write, with the server-wide
// keys in place: refused with a 400 that says why, and nothing is sent anywhere.
void TestWarrendDestinations::aUsersEndpointInsideIsRefusedAtCreation_data() {
    QTest::addColumn<QString>("provider");
    const QString port = QString::number(m_usersModel.port());
    QTest::newRow("anthropic at 127.0.0.1") << "anthropic:http://127.0.0.1:" + port;
    QTest::newRow("openai-compatible at 127.0.0.1") << "openai-compatible:http://127.0.0.1:" + port + "/v1";
    QTest::newRow("localhost") << "anthropic:http://localhost:" + port;
    QTest::newRow("LOCALHOST with a dot") << "anthropic:http://LOCALHOST.:" + port;
    QTest::newRow("IPv6 loopback") << "openai-compatible:http://[::1]:" + port + "/v1";
    QTest::newRow("IPv4-mapped loopback") << "anthropic:http://[::ffff:127.0.0.1]:" + port;
    QTest::newRow("unspecified") << "anthropic:http://0.0.0.0:" + port;
    QTest::newRow("metadata service") << "openai-compatible:http://169.254.169.254/v1";
    QTest::newRow("private network") << "openai-compatible:http://10.1.2.3:" + port + "/v1";
    QTest::newRow("a local server by name (ollama)") << "ollama";
}

void TestWarrendDestinations::aUsersEndpointInsideIsRefusedAtCreation() {
    QFETCH(QString, provider);
    const std::size_t before = m_usersModel.requests().size();
    const HttpAnswer created = m_server->request("POST", "/v1/tasks", m_alice, taskBody(provider));
    m_seen += created.body;
    QVERIFY2(created.status == 400, created.body.constData());
    QCOMPARE(created.errorCode(), QString("invalid_request"));
    QVERIFY2(created.body.contains("--allow-internal"), created.body.constData());
    QCOMPARE(m_usersModel.requests().size(), before);
    checkNoServerKeyAnywhere();
}

// A public-looking endpoint is accepted at creation, but without the user's own key the task fails
// before any call: the server's key is for the operator's endpoints alone.
void TestWarrendDestinations::theServersKeyNeverGoesToAUsersEndpoint() {
    for (const QString& provider : {QString("anthropic:https://api.anthropic.com.attacker.example"),
                                    QString("openai-compatible:https://llm.attacker.example/v1")}) {
        const json task = runToEnd(taskBody(provider));
        QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
        const std::string error = task.value("error", "");
        QVERIFY2(error.find("sent only to the endpoints the operator configured") != std::string::npos &&
                     error.find("PUT /v1/me/provider-keys/") != std::string::npos,
                 error.c_str());
    }
    checkNoServerKeyAnywhere();
}

// The machine's own host name resolves inside (/etc/hosts: 127.0.1.1, or the container's address): with
// the user's own key, the call is refused after resolving, and nothing inside is connected to.
void TestWarrendDestinations::aNameThatResolvesInsideIsNotConnectedTo() {
    const QString name = QHostInfo::localHostName();
    const QHostInfo resolved = QHostInfo::fromName(name);
    if (resolved.error() != QHostInfo::NoError || resolved.addresses().isEmpty())
        QSKIP("this machine's host name does not resolve");
    QTcpServer insideEverywhere; // on every address, so whatever the name resolves to is a listener
    QVERIFY(insideEverywhere.listen(QHostAddress::Any));
    const HttpAnswer put =
        m_server->request("PUT", "/v1/me/provider-keys/openai-compatible", m_alice,
                          QByteArray::fromStdString(json{{"key", m_aliceKey.toStdString()}}.dump()));
    QVERIFY2(put.status == 200, put.body.constData());
    const json task = runToEnd(taskBody("openai-compatible:http://" + name + ":" +
                                        QString::number(insideEverywhere.serverPort()) + "/v1"));
    QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
    QVERIFY2(task.value("error", "").find("inside the server's own host or its networks") !=
                 std::string::npos,
             task.dump().c_str());
    QVERIFY(!insideEverywhere.hasPendingConnections());
    checkNoServerKeyAnywhere();
}

// A sandbox's allow-list naming the host's loopback, a private network, link-local or the metadata
// service, by number in any spelling or by a local name: refused when the task is created.
void TestWarrendDestinations::anAllowListInsideIsRefusedAtCreation_data() {
    QTest::addColumn<QString>("network");
    const QString port = QString::number(m_inside.port());
    QTest::newRow("127.0.0.1") << "allow:127.0.0.1:" + port;
    QTest::newRow("another loopback address") << "allow:127.0.0.2:" + port;
    QTest::newRow("10.x") << "allow:10.0.0.1:" + port;
    QTest::newRow("metadata") << "allow:169.254.169.254";
    QTest::newRow("IPv6 loopback") << "allow:[::1]:" + port;
    QTest::newRow("IPv4-mapped loopback") << "allow:[::ffff:127.0.0.1]:" + port;
    QTest::newRow("unspecified") << "allow:0.0.0.0:" + port;
    QTest::newRow("localhost") << "allow:localhost:" + port;
    QTest::newRow("among public hosts") << "allow:pypi.org,127.0.0.1:5432";
}

void TestWarrendDestinations::anAllowListInsideIsRefusedAtCreation() {
    QFETCH(QString, network);
    const HttpAnswer created = m_server->request(
        "POST", "/v1/tasks", m_alice,
        taskBody({}, network,
                 R"({"turns": [{"tool_calls": [{"name": "finish", "arguments": {"summary": "x"}}]}]})"));
    QVERIFY2(created.status == 400, created.body.constData());
    QVERIFY2(created.body.contains("--allow-internal"), created.body.constData());
    QCOMPARE(m_inside.connections, 0);
}

// A name that passes creation but resolves inside (this machine's host name) is refused by the egress
// proxy when the sandbox connects; nothing inside is reached.
void TestWarrendDestinations::anAllowedNameThatResolvesInsideReachesNothing() {
    const QString name = QHostInfo::localHostName().toLower();
    if (QHostInfo::fromName(name).addresses().isEmpty())
        QSKIP("this machine's host name does not resolve");
    QTcpServer insideEverywhere;
    QVERIFY(insideEverywhere.listen(QHostAddress::Any));
    const QString authority = name + ":" + QString::number(insideEverywhere.serverPort());
    const QByteArray script =
        shellScript({{"probe", "curl -sS --noproxy '' http://" + authority.toStdString() + "/ 2>&1"}});
    std::vector<json> events;
    const json task = runToEnd(taskBody({}, "allow:" + authority, script), &events);
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    const std::string output = toolOutput(events, "probe");
    QVERIFY2(output.find("inside this machine or its networks") != std::string::npos, output.c_str());
    QVERIFY(!insideEverywhere.hasPendingConnections());
}

// With --allow-internal the operator's destinations, and only they, are reached: a user's endpoint there
// works with the user's own key (never the server's), a redirect from it to another inside address is
// not followed, and a sandbox reaches the one allowed inside service.
void TestWarrendDestinations::theOperatorsAllowanceOpensOnlyItsDestinations() {
    HostHttpServer notAllowed;
    const QString model = "127.0.0.1:" + QString::number(m_usersModel.port());
    const QString service = "127.0.0.1:" + QString::number(m_inside.port());
    QVERIFY2(restart({"--allow-internal", model + "," + service}), qPrintable(m_server->serverOutput()));
    const QByteArray ownKey = QByteArray::fromStdString(json{{"key", m_aliceKey.toStdString()}}.dump());
    QVERIFY(m_server->request("PUT", "/v1/me/provider-keys/openai-compatible", m_alice, ownKey).status ==
            200);

    // The user's own key goes to the user's endpoint, now allowed.
    m_usersModel.enqueue(finishTurn());
    std::size_t first = m_usersModel.requests().size();
    json task = runToEnd(taskBody("openai-compatible:http://" + model + "/v1"));
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    QCOMPARE(m_usersModel.requests().size(), first + 1);
    QCOMPARE(m_usersModel.requests().back().headers.value("authorization"), "Bearer " + m_aliceKey);

    // Without it, the server's key still does not go there: no call at all.
    QCOMPARE(m_server->request("DELETE", "/v1/me/provider-keys/openai-compatible", m_alice).status, 204);
    first = m_usersModel.requests().size();
    task = runToEnd(taskBody("openai-compatible:http://" + model + "/v1"));
    QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
    QVERIFY2(task.value("error", "").find("sent only to the endpoints the operator configured") !=
                 std::string::npos,
             task.dump().c_str());
    QCOMPARE(m_usersModel.requests().size(), first);

    // The allowed endpoint answers with a redirect inside: not followed.
    QVERIFY(m_server->request("PUT", "/v1/me/provider-keys/openai-compatible", m_alice, ownKey).status ==
            200);
    m_usersModel.enqueue(
        MockResponse::json(307, "Temporary Redirect", "{}",
                           {{"Location", "http://127.0.0.1:" + QByteArray::number(notAllowed.port()) +
                                             "/v1/chat/completions"}}));
    task = runToEnd(taskBody("openai-compatible:http://" + model + "/v1"));
    QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
    QCOMPARE(notAllowed.connections, 0);

    // A sandbox reaches the allowed service, and not the other one on the same loopback.
    const QByteArray script =
        shellScript({{"allowed", "curl -sS --noproxy '' http://" + service.toStdString() + "/ok 2>&1"},
                     {"other", "curl -sS --noproxy '' http://127.0.0.1:" + std::to_string(notAllowed.port()) +
                                   "/no 2>&1"}});
    const HttpAnswer refused = m_server->request(
        "POST", "/v1/tasks", m_alice,
        taskBody({}, "allow:" + service + ",127.0.0.1:" + QString::number(notAllowed.port()), script));
    QVERIFY2(refused.status == 400, refused.body.constData()); // the other port is not the operator's
    std::vector<json> events;
    task = runToEnd(taskBody({}, "allow:" + service, script), &events);
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    QCOMPARE(QString::fromStdString(toolOutput(events, "allowed")), "hello from the host: GET /ok HTTP/1.1\n");
    const std::string other = toolOutput(events, "other");
    QVERIFY2(other.find("not in this task's network allow-list") != std::string::npos, other.c_str());
    QCOMPARE(m_inside.requests, QStringList{"GET /ok HTTP/1.1"});
    QCOMPARE(notAllowed.connections, 0);
}

QTEST_GUILESS_MAIN(TestWarrendDestinations)
#include "tst_warrend_destinations.moc"
