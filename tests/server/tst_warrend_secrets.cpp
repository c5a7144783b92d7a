// Secrets bound to hosts on warrend (DESIGN §12), performed against a real warrend on its own PostgreSQL and
// an HTTPS server in the test (reached by name through the operator's --resolve and --allow-internal, its
// certificate trusted through --egress-ca): a user's secret is stored sealed, listed without its value, used
// by that user's tasks only, put into the requests to its hosts by the egress proxy, and found nowhere else:
// not in the sandbox, the events, the database in clear, warrend's output or its data directory.
#include "app/store/postgres/PgConnection.h"
#include "tests/support/HostTlsServer.h"
#include "tests/support/TestCertificate.h"
#include "tests/support/WarrendServer.h"

#include <QDirIterator>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QtTest>
#include <sys/stat.h>

using namespace warren::test;
using nlohmann::json;

namespace {

const std::string kValue = "ghp_serverSideREALtoken0123456789ab";

bool writeSealKey(const QString& path) {
    QByteArray bytes(32, '\0');
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(bytes.data()), 8);
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() &&
           ::chmod(QFile::encodeName(path).constData(), 0600) == 0;
}

QByteArray secretBody(const std::string& value, const std::string& hosts, const std::string& header = {}) {
    json body{{"value", value}, {"hosts", hosts}};
    if (!header.empty())
        body["header"] = header;
    return QByteArray::fromStdString(body.dump());
}

QByteArray taskBody(const QString& upload, const json& script, const json& secrets) {
    return QByteArray::fromStdString(
        json{{"prompt", "call the API"}, {"workspace", upload.toStdString()}, {"script", script}, {"secrets", secrets}}
            .dump());
}

json shellTurn(const std::string& command) {
    return {{"tool_calls", json::array({{{"name", "shell"}, {"arguments", {{"command", command}}}}})}};
}

json finishTurn() {
    return {{"tool_calls", json::array({{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}})}};
}

QStringList filesHolding(const QString& dir, const QByteArray& text) {
    QStringList found;
    for (QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories); it.hasNext();) {
        QFile file(it.next());
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(text))
            found << file.fileName();
    }
    return found;
}

} // namespace

class TestWarrendSecrets : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void secretsAreTheirOwnersAlone();
    void badSecretsAreRefused_data();
    void badSecretsAreRefused();
    void theBoundHostGetsTheValueAndNothingElseHoldsIt();
    void theCliKeepsASecretOnTheServer();
    void aTenantsSecretServesItsUsersAlone();

private:
    QString path(const QString& name) const { return m_scratch.filePath(name); }
    QString apiHost() const { return "api.example.test:" + QString::number(m_api->port()); }

    QTemporaryDir m_scratch;
    std::unique_ptr<HostTlsServer> m_api;
    std::unique_ptr<WarrendServer> m_server;
    QString m_alice, m_bob, m_carol, m_upload;
};

void TestWarrendSecrets::initTestCase() {
    if (QStandardPaths::findExecutable("openssl").isEmpty() || QStandardPaths::findExecutable("curl").isEmpty())
        QSKIP("needs openssl and curl (packaging/install-deps.sh)");
    QVERIFY(makeSelfSignedCertificate("api.example.test", path("api.pem"), path("api.key")));
    QVERIFY(writeSealKey(path("seal.key")));
    m_api = std::make_unique<HostTlsServer>(path("api.pem"), path("api.key"));
    QVERIFY(m_api->port() != 0);
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice");
    m_bob = m_server->addUser("bob");
    m_carol = m_server->addUser("carol", "elsewhere");
    QVERIFY(m_alice.startsWith("wrn_") && m_bob.startsWith("wrn_") && m_carol.startsWith("wrn_"));
    // The operator lets tasks reach this test's server: by name, on loopback, with its certificate.
    QVERIFY2(m_server->start(&error, {"--provider-key-secret", path("seal.key"), "--resolve", apiHost() + ":127.0.0.1",
                                      "--allow-internal", "127.0.0.1:" + QString::number(m_api->port()),
                                      "--egress-ca", path("api.pem")}),
             qPrintable(error));
    QVERIFY(QDir().mkpath(path("ws")));
    m_upload = m_server->upload(m_alice, path("ws"));
    QVERIFY(!m_upload.isEmpty());
}

void TestWarrendSecrets::secretsAreTheirOwnersAlone() {
    const HttpAnswer stored = m_server->request("PUT", "/v1/me/secrets/GH_TOKEN", m_alice,
                                                secretBody(kValue, apiHost().toStdString()));
    QVERIFY2(stored.status == 200, stored.body.constData());
    QCOMPARE(stored.json().value("name", ""), std::string("GH_TOKEN"));
    QVERIFY(!stored.body.contains(QByteArray::fromStdString(kValue)));
    const HttpAnswer listed = m_server->request("GET", "/v1/me/secrets", m_alice);
    QCOMPARE(listed.status, 200);
    QCOMPARE(listed.json()["secrets"].size(), std::size_t(1));
    QCOMPARE(listed.json()["secrets"][0].value("hosts", ""), apiHost().toStdString());
    QVERIFY(!listed.body.contains(QByteArray::fromStdString(kValue)));
    // Bob sees none of it, and cannot have his task use it.
    QCOMPARE(m_server->request("GET", "/v1/me/secrets", m_bob).json()["secrets"].size(), std::size_t(0));
    const QString bobsUpload = m_server->upload(m_bob, path("ws"));
    const HttpAnswer bobsTask = m_server->request(
        "POST", "/v1/tasks", m_bob, taskBody(bobsUpload, {{"turns", json::array({finishTurn()})}}, json::array({"GH_TOKEN"})));
    QCOMPARE(bobsTask.status, 400);
    QVERIFY2(bobsTask.body.contains("no secret GH_TOKEN of yours"), bobsTask.body.constData());
    QCOMPARE(m_server->request("DELETE", "/v1/me/secrets/GH_TOKEN", m_bob).status, 404);
    // In the database: the hosts in clear, the value only sealed.
    auto db = warren::control::PgConnection::open(m_server->databaseUrl().toStdString());
    QVERIFY(db);
    auto rows = db->exec("read the secrets", "SELECT hosts, encode(ciphertext, 'escape') FROM user_secrets");
    QVERIFY(rows);
    QCOMPARE(rows->rows.size(), std::size_t(1));
    QCOMPARE(rows->rows[0].text(0), apiHost().toStdString());
    QVERIFY(rows->rows[0].text(1).find(kValue) == std::string::npos);
}

void TestWarrendSecrets::badSecretsAreRefused_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    QTest::newRow("a line break in the value") << "TOKEN" << secretBody("a\r\nX-Evil: 1", "example.com")
                                               << "control character";
    QTest::newRow("a host inside the server's networks") << "TOKEN" << secretBody("v", "10.0.0.1:443") << "10.0.0.1";
    QTest::newRow("a name the sandbox reads") << "LD_PRELOAD" << secretBody("v", "example.com") << "read for themselves";
    QTest::newRow("a header the proxy owns") << "TOKEN" << secretBody("v", "example.com", "Host: {}")
                                             << "which the proxy sets itself";
    QTest::newRow("no hosts") << "TOKEN" << QByteArray(R"({"value": "v"})") << "hosts: a string is required";
    QTest::newRow("another field") << "TOKEN" << QByteArray(R"({"value": "v", "hosts": "a.com", "x": 1})")
                                   << "a field other than";
    QTest::newRow("in_body not a boolean") << "TOKEN" << QByteArray(R"({"value": "v", "hosts": "a.com", "in_body": 1})")
                                           << "in_body: must be true or false";
}

void TestWarrendSecrets::badSecretsAreRefused() {
    QFETCH(QString, name);
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    const HttpAnswer answer = m_server->request("PUT", "/v1/me/secrets/" + name, m_alice, body);
    QVERIFY2(answer.status == 400, answer.body.constData());
    QVERIFY2(answer.body.contains(message.toUtf8()), answer.body.constData());
    QVERIFY(!answer.body.contains("X-Evil"));
}

// `warren secrets set|list|delete --remote` (RemoteControlPlane over PUT, GET, DELETE /v1/me/secrets): the
// value goes to the server, sealed there, and nothing of it stays on this machine or is printed back.
void TestWarrendSecrets::theCliKeepsASecretOnTheServer() {
    const QByteArray value = "cli-REAL-value-0123456789abcdef";
    QTemporaryDir home;
    const auto warren = [&](const QStringList& args, const QByteArray& input = {}) {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("WARREN_REMOTE_KEY", m_alice);
        process.setProcessEnvironment(environment);
        process.start(QProcessEnvironment::systemEnvironment().value("WARREN_CLI"),
                      args + QStringList{"--remote", m_server->url(), "--data-dir", home.path()});
        process.write(input);
        process.closeWriteChannel();
        process.waitForFinished(60000);
        return std::tuple{process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
    };
    auto [setStatus, setOut, setErr] =
        warren({"secrets", "set", "CLI_TOKEN", "--host", apiHost(), "--header", "X-Token: {}", "--in-body"}, value + "\n");
    QVERIFY2(setStatus == 0, setErr.constData());
    auto [listStatus, listed, listErr] = warren({"secrets", "list"});
    QVERIFY2(listStatus == 0, listErr.constData());
    QVERIFY2(listed.contains("CLI_TOKEN\t" + apiHost().toUtf8() + "\tX-Token: {}\tin bodies\t"), listed.constData());
    QVERIFY(!(setOut + setErr + listed + listErr).contains(value));
    QVERIFY(filesHolding(home.path(), value).isEmpty());
    const HttpAnswer onServer = m_server->request("GET", "/v1/me/secrets", m_alice);
    QVERIFY(onServer.body.contains("CLI_TOKEN"));
    const json listedOnServer = onServer.json();
    for (const json& entry : listedOnServer["secrets"])
        if (entry.value("name", "") == "CLI_TOKEN")
            QCOMPARE(entry.value("in_body", false), true);
    // A bad binding is refused before anything is sent.
    auto [badStatus, badOut, badErr] = warren({"secrets", "set", "BAD_ONE", "--host", "*.com"}, value + "\n");
    QCOMPARE(badStatus, 2);
    QVERIFY2(badErr.contains("*.com") && !badErr.contains(value), badErr.constData());
    auto [deleteStatus, deleteOut, deleteErr] = warren({"secrets", "delete", "CLI_TOKEN"});
    QVERIFY2(deleteStatus == 0, deleteErr.constData());
    QVERIFY(!m_server->request("GET", "/v1/me/secrets", m_alice).body.contains("CLI_TOKEN"));
}

void TestWarrendSecrets::theBoundHostGetsTheValueAndNothingElseHoldsIt() {
    QVERIFY(m_server->request("PUT", "/v1/me/secrets/GH_TOKEN", m_alice, secretBody(kValue, apiHost().toStdString()))
                .status == 200);
    const std::string url = "https://" + apiHost().toStdString() + "/user";
    const json script = {{"turns", json::array({shellTurn("printenv GH_TOKEN"),
                                                shellTurn("curl -sS " + url + " -H \"Authorization: Bearer $GH_TOKEN\" 2>&1"),
                                                finishTurn()})}};
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_alice, taskBody(m_upload, script, json::array({"GH_TOKEN"})));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString id = QString::fromStdString(created.json().value("id", ""));
    const auto events = m_server->streamEvents(id, m_alice, {});
    QVERIFY(!events.empty());
    QCOMPARE(events.back().value("type", ""), std::string("task_finished"));
    QCOMPARE(m_api->heads.size(), 1);
    QVERIFY2(m_api->heads.front().contains("Authorization: Bearer " + QByteArray::fromStdString(kValue)),
             m_api->heads.front().constData());
    std::vector<std::string> outputs;
    bool recorded = false;
    for (const auto& event : events) {
        QVERIFY2(event.dump().find(kValue) == std::string::npos, event.dump().c_str());
        if (event.value("type", "") == "tool_result")
            outputs.push_back(event["data"].value("output", ""));
        if (event.value("type", "") == "network_request" && event["data"].contains("secrets"))
            recorded = event["data"]["secrets"] == json({"GH_TOKEN"}) && event["data"].value("status", 0) == 200;
    }
    QVERIFY(recorded);
    QVERIFY(outputs.size() >= 2);
    QVERIFY2(outputs[0].rfind("warren-secret-", 0) == 0, outputs[0].c_str());
    QVERIFY2(outputs[1].rfind("authorization=Bearer warren-secret-", 0) == 0, outputs[1].c_str());
    QVERIFY(!m_server->serverOutput().contains(QByteArray::fromStdString(kValue)));
    const QStringList holding = filesHolding(m_server->dataDir(), QByteArray::fromStdString(kValue));
    QVERIFY2(holding.isEmpty(), qPrintable(holding.join(", ")));
}

// The operator's secret for every user of a tenant (`warrend admin set-secret`): listed to its users with
// scope "tenant" and never its value, used by their tasks at the bound host, refused to a user of another
// tenant, not removable by a user, and a user's own secret of the same name used before it.
void TestWarrendSecrets::aTenantsSecretServesItsUsersAlone() {
    const QByteArray tenantValue = "tenant-wide-REAL-value-0123456789";
    const AdminResult set = m_server->admin({"set-secret", "TEAM_TOKEN", "--tenant", "default", "--host", apiHost(),
                                             "--header", "X-Team: {}", "--provider-key-secret", path("seal.key")},
                                            tenantValue + "\n");
    QVERIFY2(set.exitCode == 0, set.err.constData());
    QVERIFY(!(set.out + set.err).contains(tenantValue));
    const HttpAnswer listed = m_server->request("GET", "/v1/me/secrets", m_bob);
    QVERIFY(!listed.body.contains(tenantValue));
    const json bobsSecrets = listed.json()["secrets"];
    QVERIFY2(bobsSecrets.size() == 1 && bobsSecrets[0].value("name", "") == "TEAM_TOKEN" &&
                 bobsSecrets[0].value("scope", "") == "tenant",
             listed.body.constData());
    QCOMPARE(m_server->request("GET", "/v1/me/secrets", m_carol).json()["secrets"].size(), std::size_t(0));
    const HttpAnswer removed = m_server->request("DELETE", "/v1/me/secrets/TEAM_TOKEN", m_bob);
    QVERIFY2(removed.status == 409 && removed.body.contains("tenant_secret"), removed.body.constData());

    // Carol's tenant has none: her task naming it creates nothing.
    const HttpAnswer carols = m_server->request(
        "POST", "/v1/tasks", m_carol,
        taskBody(m_server->upload(m_carol, path("ws")), {{"turns", json::array({finishTurn()})}}, json::array({"TEAM_TOKEN"})));
    QVERIFY2(carols.status == 400 && carols.body.contains("no secret TEAM_TOKEN"), carols.body.constData());

    const auto run = [&](const QString& key) {
        m_api->heads.clear();
        const std::string url = "https://" + apiHost().toStdString() + "/team";
        const json script = {{"turns", json::array({shellTurn("curl -sS " + url + " -H \"X-Team: $TEAM_TOKEN\" 2>&1"),
                                                    finishTurn()})}};
        const HttpAnswer created = m_server->request(
            "POST", "/v1/tasks", key, taskBody(m_server->upload(key, path("ws")), script, json::array({"TEAM_TOKEN"})));
        if (created.status != 201)
            return std::string("not created: ") + created.body.toStdString();
        const auto events = m_server->streamEvents(QString::fromStdString(created.json().value("id", "")), key, {});
        for (const auto& event : events)
            if (event.dump().find(tenantValue.toStdString()) != std::string::npos)
                return std::string("an event holds the value");
        return m_api->heads.size() == 1 ? m_api->heads.front().toStdString() : std::string("no request arrived");
    };
    const std::string bobsHead = run(m_bob);
    QVERIFY2(bobsHead.find("X-Team: " + tenantValue.toStdString()) != std::string::npos, bobsHead.c_str());
    // Bob's own of that name is his tasks' from now on.
    QVERIFY(m_server->request("PUT", "/v1/me/secrets/TEAM_TOKEN", m_bob,
                              secretBody("bobs-own-value-42", apiHost().toStdString(), "X-Team: {}"))
                .status == 200);
    const std::string ownHead = run(m_bob);
    QVERIFY2(ownHead.find("X-Team: bobs-own-value-42") != std::string::npos, ownHead.c_str());
    QVERIFY(!m_server->serverOutput().contains(tenantValue));
    QVERIFY(filesHolding(m_server->dataDir(), tenantValue).isEmpty());
    QVERIFY(m_server->request("DELETE", "/v1/me/secrets/TEAM_TOKEN", m_bob).status == 204);
    QVERIFY(m_server->admin({"delete-secret", "TEAM_TOKEN", "--tenant", "default"}).exitCode == 0);
}

QTEST_GUILESS_MAIN(TestWarrendSecrets)
#include "tst_warrend_secrets.moc"
