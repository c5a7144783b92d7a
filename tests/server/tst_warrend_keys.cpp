// Provider keys in warrend, end to end: a real server process on PostgreSQL, real sandboxes, and the
// model (MockLlmServer in this process) speaking OpenAI's wire format. Each user's task reaches the model
// with their own key or, without one, the server-wide key; no user reaches another's; and the keys are in
// no response, event, log line, table row, data file or sandbox. A changed or missing operator secret fails
// the owner's task with a message that says so, never with someone else's key in its place.
#include "app/store/postgres/PgConnection.h"
#include "tests/support/WarrendServer.h"
#include "tests/support/MockLlmServer.h"

#include <QDirIterator>
#include <QFile>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

using namespace warren::test;
using nlohmann::json;

namespace {

QByteArray randomKey(const char* prefix) {
    return QByteArray(prefix) + QByteArray::number(QRandomGenerator::system()->generate64(), 16) +
           QByteArray::number(QRandomGenerator::system()->generate64(), 16);
}

// What `openssl rand 32` gives an operator.
QByteArray randomSecret() {
    QByteArray bytes(32, '\0');
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(bytes.data()), 8);
    return bytes;
}

// The agent's whole environment, as its shell sees it and as the kernel holds it.
MockResponse envTurn() {
    const json arguments{{"command", "env; echo ==; tr '\\0' '\\n' < /proc/self/environ; echo; "
                                     "tr '\\0' '\\n' < /proc/1/environ"}};
    return MockResponse::sse(
        splitEvents(openAiToolCallStream("call_env", "shell", {QString::fromStdString(arguments.dump())})));
}

MockResponse finishTurn() {
    return MockResponse::sse(splitEvents(
        openAiToolCallStream("call_finish", "finish", {R"({"summary": "printed the environment"})"})));
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() &&
           ::chmod(QFile::encodeName(path).constData(), 0600) == 0;
}

QByteArray keyBody(const QByteArray& key) {
    return QByteArray::fromStdString(json{{"key", key.toStdString()}}.dump());
}

} // namespace

class TestWarrendKeys : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void badKeysAreRefusedAndNothingStored_data();
    void badKeysAreRefusedAndNothingStored();
    void aBodyLargerThanAKeyIsRefusedUnread();
    void eachTaskUsesItsOwnersKeyElseTheServers();
    void noUserReachesAnothersKey();
    void afterDeletingTheKeyTheServersIsUsed();
    void theKeyIsNowhereButTheModelCall();
    void aChangedSecretFailsTheOwnersTask();
    void withoutASecretNoKeyIsStored();
    void withNoKeyAtAllTheTaskSaysWhereOneGoes();

private:
    HttpAnswer request(const QByteArray& method, const QString& path, const QString& key,
                       const QByteArray& body = {});
    // Runs a task of the caller's to its end: the shell prints the environment, then it finishes. The
    // task's JSON when done; its events and the model's requests are kept.
    json runTask(const QString& key, int modelTurns = 2);
    QList<QByteArray> authorizationsSince(std::size_t first) const;
    // The model server as the operator's configured endpoint: the server-wide key is for it (a task naming
    // any other endpoint never gets that key: tst_warrend_destinations).
    QStringList withOperatorEndpoint(QStringList args = {}) const {
        return args + QStringList{"--provider", "openai-compatible:" + m_model.baseUrl() + "/v1", "--model", "m"};
    }

    std::unique_ptr<WarrendServer> m_server;
    MockLlmServer m_model;
    QTemporaryDir m_scratch;
    QString m_secretFile, m_otherSecretFile;
    QString m_alice, m_bob, m_aliceUpload, m_bobUpload;
    QByteArray m_aliceKey, m_serverKey;
    QByteArray m_seen; // every response body and every event
};

void TestWarrendKeys::initTestCase() {
    m_aliceKey = randomKey("sk-alice-own-");
    m_serverKey = randomKey("sk-server-wide-");
    // The server-wide key, as an operator gives it: warrend's environment.
    qputenv("WARREN_OPENAI_COMPATIBLE_API_KEY", m_serverKey);
    m_secretFile = m_scratch.filePath("provider-keys.secret");
    m_otherSecretFile = m_scratch.filePath("other.secret");
    QVERIFY(writeFile(m_secretFile, randomSecret()));
    QVERIFY(writeFile(m_otherSecretFile, randomSecret()));
    QVERIFY(m_model.listen());
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice");
    m_bob = m_server->addUser("bob");
    QVERIFY(m_alice.startsWith("wrn_") && m_bob.startsWith("wrn_"));
    QVERIFY2(m_server->start(&error, withOperatorEndpoint({"--provider-key-secret", m_secretFile})), qPrintable(error));
    const QString workspace = m_scratch.filePath("ws");
    QVERIFY(QDir().mkpath(workspace));
    QVERIFY(writeFile(workspace + "/README.md", "# project\n"));
    for (QString* upload : {&m_aliceUpload, &m_bobUpload}) {
        const HttpAnswer answer =
            request("POST", "/v1/uploads", upload == &m_aliceUpload ? m_alice : m_bob, tarOf(workspace));
        QCOMPARE(answer.status, 201);
        *upload = QString::fromStdString(answer.json().value("id", ""));
    }
}

HttpAnswer TestWarrendKeys::request(const QByteArray& method, const QString& path, const QString& key,
                                    const QByteArray& body) {
    const bool tar = path == "/v1/uploads";
    HttpAnswer answer = m_server->request(
        method, path, key, body,
        tar ? QList<std::pair<QByteArray, QByteArray>>{{"Content-Type", "application/x-tar"}}
            : QList<std::pair<QByteArray, QByteArray>>{});
    m_seen += answer.body + "\n";
    for (const auto& [name, value] : answer.headers)
        m_seen += name + ": " + value + "\n";
    return answer;
}

json TestWarrendKeys::runTask(const QString& key, int modelTurns) {
    if (modelTurns > 0)
        m_model.enqueue(envTurn());
    if (modelTurns > 1)
        m_model.enqueue(finishTurn());
    const QString upload = key == m_alice ? m_aliceUpload : m_bobUpload;
    const json body{{"prompt", "print the environment"},
                    {"workspace", upload.toStdString()},
                    {"provider", ("openai-compatible:" + m_model.baseUrl() + "/v1").toStdString()},
                    {"model", "m"}};
    const HttpAnswer created = request("POST", "/v1/tasks", key, QByteArray::fromStdString(body.dump()));
    if (created.status != 201) {
        qWarning() << "create:" << created.status << created.body;
        return json();
    }
    const QString id = QString::fromStdString(created.json().value("id", ""));
    for (const json& event : m_server->streamEvents(id, key, {})) // to the stream's end
        m_seen += QByteArray::fromStdString(event.dump()) + "\n";
    return request("GET", "/v1/tasks/" + id, key).json();
}

QList<QByteArray> TestWarrendKeys::authorizationsSince(std::size_t first) const {
    QList<QByteArray> seen;
    for (std::size_t i = first; i < m_model.requests().size(); ++i)
        seen << m_model.requests()[i].headers.value("authorization");
    return seen;
}

void TestWarrendKeys::badKeysAreRefusedAndNothingStored_data() {
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    const QByteArray good = keyBody(m_aliceKey);
    QTest::newRow("unknown provider") << "gemini" << good << 400;
    QTest::newRow("a local server needs no key") << "ollama" << good << 400;
    QTest::newRow("unknown field") << "openai" << QByteArray(R"({"key": "sk-a", "note": "x"})") << 400;
    QTest::newRow("empty key") << "openai" << QByteArray(R"({"key": ""})") << 400;
    QTest::newRow("oversize key") << "openai" << (keyBody(QByteArray(5000, 'k'))) << 400;
    QTest::newRow("not UTF-8") << "openai" << QByteArray("{\"key\": \"sk-\xff\"}") << 400;
    QTest::newRow("not JSON") << "openai" << m_aliceKey << 400;
}

void TestWarrendKeys::badKeysAreRefusedAndNothingStored() {
    QFETCH(QString, provider);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    const HttpAnswer answer = request("PUT", "/v1/me/provider-keys/" + provider, m_alice, body);
    QVERIFY2(answer.status == status, answer.body.constData());
    QVERIFY2(!answer.errorCode().isEmpty(), answer.body.constData());
    QCOMPARE(request("GET", "/v1/me/provider-keys", m_alice).json(), json::parse(R"({"provider_keys": []})"));
}

// No key is 64 KiB: the headers alone are answered, with 413, before any of the body is sent.
void TestWarrendKeys::aBodyLargerThanAKeyIsRefusedUnread() {
    const QUrl url(m_server->url());
    QTcpSocket socket;
    socket.connectToHost(url.host(), static_cast<quint16>(url.port()));
    QVERIFY(socket.waitForConnected(10000));
    socket.write("PUT /v1/me/provider-keys/openai HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                 m_alice.toUtf8() + "\r\nContent-Type: application/json\r\nContent-Length: 65536\r\n\r\n");
    QByteArray answer;
    while (!answer.contains("\r\n\r\n") && socket.waitForReadyRead(10000))
        answer += socket.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 413"), answer.constData());
}

void TestWarrendKeys::eachTaskUsesItsOwnersKeyElseTheServers() {
    const HttpAnswer put =
        request("PUT", "/v1/me/provider-keys/openai-compatible", m_alice, keyBody(m_aliceKey));
    QVERIFY2(put.status == 200, put.body.constData());
    QCOMPARE(QString::fromStdString(put.json().value("provider", "")), QString("openai-compatible"));
    const json listed = request("GET", "/v1/me/provider-keys", m_alice).json();
    QCOMPARE(listed["provider_keys"].size(), 1u);
    QCOMPARE(listed["provider_keys"][0]["provider"], json("openai-compatible"));
    QVERIFY(listed["provider_keys"][0].value("updated_at", "").size() == 20); // 2026-12-02T01:02:03Z

    std::size_t first = m_model.requests().size();
    json task = runTask(m_alice);
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    QCOMPARE(authorizationsSince(first), (QList<QByteArray>{"Bearer " + m_aliceKey, "Bearer " + m_aliceKey}));

    first = m_model.requests().size();
    task = runTask(m_bob);
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    QCOMPARE(authorizationsSince(first),
             (QList<QByteArray>{"Bearer " + m_serverKey, "Bearer " + m_serverKey}));
    // The shell did print the agent's environment, into the tool output the keys are looked for in below.
    QVERIFY(m_seen.contains("tool_output"));
    QVERIFY(m_seen.contains("PATH="));
}

void TestWarrendKeys::noUserReachesAnothersKey() {
    QCOMPARE(request("GET", "/v1/me/provider-keys", m_bob).json(), json::parse(R"({"provider_keys": []})"));
    QCOMPARE(request("DELETE", "/v1/me/provider-keys/openai-compatible", m_bob).status, 404);
    // Bob's PUT is Bob's own key; Alice's stays hers.
    QCOMPARE(
        request("PUT", "/v1/me/provider-keys/openai-compatible", m_bob, R"({"key": "sk-bob-own"})").status,
        200);
    const std::size_t first = m_model.requests().size();
    const json task = runTask(m_alice);
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    QCOMPARE(authorizationsSince(first), (QList<QByteArray>{"Bearer " + m_aliceKey, "Bearer " + m_aliceKey}));
    QCOMPARE(request("DELETE", "/v1/me/provider-keys/openai-compatible", m_bob).status, 204);
    QCOMPARE(request("GET", "/v1/me/provider-keys", m_alice).json()["provider_keys"].size(), 1u);
    QCOMPARE(request("GET", "/v1/me/provider-keys", m_bob).json()["provider_keys"].size(), 0u);
    QCOMPARE(request("GET", "/v1/me/provider-keys", QString()).status, 401);
}

void TestWarrendKeys::afterDeletingTheKeyTheServersIsUsed() {
    QCOMPARE(request("DELETE", "/v1/me/provider-keys/openai-compatible", m_alice).status, 204);
    QCOMPARE(request("DELETE", "/v1/me/provider-keys/openai-compatible", m_alice).status, 404);
    QCOMPARE(request("GET", "/v1/me/provider-keys", m_alice).json(), json::parse(R"({"provider_keys": []})"));
    const std::size_t first = m_model.requests().size();
    const json task = runTask(m_alice);
    QVERIFY2(task.value("status", "") == "succeeded", task.dump().c_str());
    QCOMPARE(authorizationsSince(first),
             (QList<QByteArray>{"Bearer " + m_serverKey, "Bearer " + m_serverKey}));
    // Stored again, for what follows.
    QCOMPARE(request("PUT", "/v1/me/provider-keys/openai-compatible", m_alice, keyBody(m_aliceKey)).status,
             200);
}

void TestWarrendKeys::theKeyIsNowhereButTheModelCall() {
    const QByteArray hexKey = m_aliceKey.toHex();
    QVERIFY(!m_seen.contains(m_aliceKey));
    QVERIFY(!m_seen.contains(m_serverKey)); // the sandbox's environment included
    const QByteArray output = m_server->serverOutput();
    QVERIFY(!output.contains(m_aliceKey) && !output.contains(m_serverKey));

    auto db = warren::control::PgConnection::open(m_server->databaseUrl().toStdString());
    QVERIFY2(db, db ? "" : db.error().message.c_str());
    auto rows = db->exec("read the table", "SELECT * FROM provider_keys");
    QVERIFY2(rows, rows ? "" : rows.error().message.c_str());
    QCOMPARE(rows->rows.size(), std::size_t(1));
    for (std::size_t column = 0; column < rows->rows[0].size(); ++column) {
        const QByteArray value = QByteArray::fromStdString(rows->rows[0].text(column));
        QVERIFY(!value.contains(m_aliceKey) && !value.toLower().contains(hexKey));
    }

    QDirIterator files(m_server->dataDir(), QDir::Files | QDir::Hidden | QDir::System,
                       QDirIterator::Subdirectories);
    int read = 0;
    while (files.hasNext()) {
        QFile file(files.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        ++read;
        const QByteArray bytes = file.readAll();
        QVERIFY2(!bytes.contains(m_aliceKey) && !bytes.contains(hexKey), qPrintable(file.fileName()));
    }
    QVERIFY(read > 0);
}

void TestWarrendKeys::aChangedSecretFailsTheOwnersTask() {
    m_server->stop();
    QString error;
    QVERIFY2(m_server->start(&error, withOperatorEndpoint({"--provider-key-secret", m_otherSecretFile})), qPrintable(error));
    const std::size_t first = m_model.requests().size();
    const json task = runTask(m_alice, 0);
    QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
    const QString message = QString::fromStdString(task.value("error", ""));
    QVERIFY2(message.contains("cannot be decrypted") && message.contains("--provider-key-secret"),
             qPrintable(message));
    QCOMPARE(m_model.requests().size(), first); // no call with another key
}

void TestWarrendKeys::withoutASecretNoKeyIsStored() {
    m_server->stop();
    QString error;
    QVERIFY2(m_server->start(&error, withOperatorEndpoint()), qPrintable(error));
    const HttpAnswer put =
        request("PUT", "/v1/me/provider-keys/openai-compatible", m_bob, R"({"key": "sk-bob-again"})");
    QCOMPARE(put.status, 409);
    QCOMPARE(put.errorCode(), QString("provider_keys_disabled"));
    QVERIFY(put.json()["error"].value("message", "").find("--provider-key-secret FILE") != std::string::npos);
    QCOMPARE(request("GET", "/v1/me/provider-keys", m_bob).json()["provider_keys"].size(), 0u);
    const std::size_t first = m_model.requests().size();
    const json task = runTask(m_alice, 0);
    QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
    QVERIFY(task.value("error", "").find("runs without --provider-key-secret") != std::string::npos);
    QCOMPARE(m_model.requests().size(), first);
    QVERIFY(!m_seen.contains(m_aliceKey) && !m_server->serverOutput().contains(m_aliceKey));
}

// Neither the owner nor the server has a key: the task fails before any model call, saying where a key goes
// on a server (not the desktop's `warren secrets set`).
void TestWarrendKeys::withNoKeyAtAllTheTaskSaysWhereOneGoes() {
    m_server->stop();
    m_server->setEnvironment("WARREN_OPENAI_COMPATIBLE_API_KEY", ""); // no server-wide key
    QString error;
    QVERIFY2(m_server->start(&error, withOperatorEndpoint()), qPrintable(error));
    const std::size_t first = m_model.requests().size();
    const json task = runTask(m_bob, 0);
    QVERIFY2(task.value("status", "") == "failed", task.dump().c_str());
    const std::string message = task.value("error", "");
    QVERIFY2(message.find("PUT /v1/me/provider-keys/openai-compatible") != std::string::npos &&
                 message.find("WARREN_OPENAI_COMPATIBLE_API_KEY") != std::string::npos,
             message.c_str());
    QCOMPARE(m_model.requests().size(), first);
}

QTEST_GUILESS_MAIN(TestWarrendKeys)
#include "tst_warrend_keys.moc"
