// `warren run --secret NAME` end to end (DESIGN §12): secrets stored with `warren secrets set NAME --host`,
// the real sandbox, the agent's forwarder, the egress proxy terminating TLS with the task's own authority,
// and HTTPS servers in the test with certificates for names (reached with --resolve, trusted with
// --egress-ca). The host a secret is bound to receives its value; the sandbox, the answer it reads back,
// the events, the output and every file of the data directory but the secret store hold only the
// placeholder; a host the secret is not bound to receives the placeholder.

#include "tests/support/AgentRun.h"
#include "tests/support/EventJson.h"
#include "tests/support/HostTlsServer.h"
#include "tests/support/TestCertificate.h"
#include "tests/support/WarrenRun.h"

#include <QDirIterator>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

const QByteArray kGithubValue = "ghp_0123456789realTOKENabcdefghijkl";
const QByteArray kSearchValue = "search-real-987654321zyxwvu";



// Files under dir (but the secret store) that hold text.
QStringList filesHolding(const QString& dir, const QByteArray& text) {
    QStringList found;
    for (QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories); it.hasNext();) {
        const QString path = it.next();
        if (it.fileName() == "secrets.json")
            continue;
        QFile file(path);
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(text))
            found << path;
    }
    return found;
}

} // namespace

class TestControlSecrets : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void theBoundHostGetsTheValueAndTheSandboxNever();
    void aSecretForBodiesGoesIntoTheBodyAsItsTypeWritesIt();
    void aSecretNotStoredIsAClearError();
    void badSecretsAreUsageErrors_data();
    void badSecretsAreUsageErrors();

private:
    QTemporaryDir m_certificates;
    QString path(const QString& name) const { return m_certificates.filePath(name); }
};

void TestControlSecrets::initTestCase() {
    if (QStandardPaths::findExecutable("openssl").isEmpty() || QStandardPaths::findExecutable("curl").isEmpty())
        QSKIP("needs openssl and curl (packaging/install-deps.sh)");
    QVERIFY(makeSelfSignedCertificate("api.example.test", path("api.pem"), path("api.key")));
    QVERIFY(makeSelfSignedCertificate("other.example.test", path("other.pem"), path("other.key")));
}

void TestControlSecrets::theBoundHostGetsTheValueAndTheSandboxNever() {
    HostTlsServer api(path("api.pem"), path("api.key"));
    HostTlsServer other(path("other.pem"), path("other.key"));
    QVERIFY(api.port() != 0 && other.port() != 0);
    const QString apiHost = "api.example.test:" + QString::number(api.port());
    const QString otherHost = "other.example.test:" + QString::number(other.port());
    QTemporaryDir data, workspace;

    auto stored = setSecret({"GH_TOKEN", "--host", apiHost}, kGithubValue, data.path());
    QVERIFY2(stored.exitCode == 0, stored.err.constData());
    QVERIFY2(stored.err.contains("stored the secret GH_TOKEN"), stored.err.constData());
    stored = setSecret({"SEARCH_KEY", "--host", apiHost, "--header", "X-Api-Key: {}"}, kSearchValue, data.path());
    QVERIFY2(stored.exitCode == 0, stored.err.constData());
    // Listed by name, hosts and header, never by value.
    const auto listed = runWarren({"secrets", "list"}, data.path());
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    const QList<QByteArray> rows = listed.out.trimmed().split('\n');
    QCOMPARE(rows.size(), 2);
    QVERIFY2(rows[0].startsWith("GH_TOKEN\t" + apiHost.toUtf8() + "\t-\t"), rows[0].constData());
    QVERIFY2(rows[1].startsWith("SEARCH_KEY\t" + apiHost.toUtf8() + "\tX-Api-Key: {}\t"), rows[1].constData());
    QVERIFY(!listed.out.contains(kGithubValue) && !listed.out.contains(kSearchValue));

    const QString script = data.filePath("script.json");
    auto shell = [](const QString& command) { return turn("shell", {{"command", command.toStdString()}}); };
    QVERIFY(writeScript(script, {
        shell("printenv GH_TOKEN SEARCH_KEY SSL_CERT_FILE NODE_EXTRA_CA_CERTS"),                      // call_0_0
        shell("curl -sS https://" + apiHost + "/user?page=2 -H \"Authorization: Bearer $GH_TOKEN\" -H 'Host: evil.test' "
              "2>&1"), // call_1_0
        shell("curl -sS -k https://" + otherHost + "/ -H \"Authorization: Bearer $GH_TOKEN\" 2>&1"),   // call_2_0
        shell("cat /proc/self/environ /proc/1/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '" +
              QString::fromLatin1(kGithubValue.left(12)) + "'; echo searched"),                     // call_3_0
        turn("finish", {{"summary", "called the API"}}),
    }));

    const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(),
                                   "--secret", "GH_TOKEN,SEARCH_KEY", "--network", "allow:" + otherHost, "--resolve",
                                   apiHost + ":127.0.0.1", "--resolve", otherHost + ":127.0.0.1", "--egress-ca",
                                   path("api.pem"), "call the API"},
                                  data.path());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    const auto events = jsonLines(result.out);

    // The bound host received the values, once each, in the headers the bindings name.
    QCOMPARE(api.heads.size(), 1);
    const QByteArray head = api.heads.front();
    QVERIFY2(head.startsWith("GET /user?page=2 HTTP/1.1\r\n"), head.constData());
    QVERIFY2(head.contains("Authorization: Bearer " + kGithubValue), head.constData());
    QVERIFY2(head.contains("X-Api-Key: " + kSearchValue), head.constData());
    QVERIFY2(!head.contains("warren-secret-"), head.constData());
    QVERIFY2(head.contains("\r\nHost: " + apiHost.toUtf8()) && !head.contains("evil.test"), head.constData());
    // The other host got the placeholder the sandbox sent, untouched.
    QCOMPARE(other.heads.size(), 1);
    QVERIFY2(other.heads.front().contains("Authorization: Bearer warren-secret-"), other.heads.front().constData());
    QVERIFY2(!other.heads.front().contains(kGithubValue), other.heads.front().constData());

    // The sandbox holds placeholders and the task's authority; the echoed answer was masked back.
    const QString environment = QString::fromStdString(toolOutput(events, "call_0_0"));
    QCOMPARE(environment.count("warren-secret-"), 2);
    QVERIFY2(environment.contains("/opt/warren/ca-bundle.pem") && environment.contains("/opt/warren/egress-ca.pem"),
             qPrintable(environment));
    const QString answer = QString::fromStdString(toolOutput(events, "call_1_0"));
    QVERIFY2(answer.startsWith("authorization=Bearer warren-secret-"), qPrintable(answer));
    QVERIFY2(answer.contains("x-api-key=warren-secret-"), qPrintable(answer));
    QVERIFY2(QString::fromStdString(toolOutput(events, "call_3_0")).startsWith("0\nsearched"),
             toolOutput(events, "call_3_0").c_str());

    // The request is an event with the secrets' names.
    bool recorded = false;
    for (const auto& event : events) {
        if (event.value("type", "") != "network_request" || !event["data"].contains("secrets"))
            continue;
        const json& request = event["data"];
        QCOMPARE(request.value("host", ""), std::string("api.example.test"));
        QCOMPARE(request.value("path", ""), std::string("/user"));
        QCOMPARE(request.value("status", 0), 200);
        QCOMPARE(request["secrets"], json({"GH_TOKEN", "SEARCH_KEY"}));
        recorded = true;
    }
    QVERIFY(recorded);

    // Nowhere else: the output, the messages, the database, the task's files, the workspace.
    for (const QByteArray& value : {kGithubValue, kSearchValue}) {
        QVERIFY(!result.out.contains(value) && !result.err.contains(value));
        const QStringList holding = filesHolding(data.path(), value) + filesHolding(workspace.path(), value);
        QVERIFY2(holding.isEmpty(), qPrintable(holding.join(", ")));
    }
}

// `--in-body`: the placeholder the agent writes into a JSON or a form body reaches the bound host as the value,
// escaped as that body writes values; a headers-only secret's placeholder in a body goes out as it is.
void TestControlSecrets::aSecretForBodiesGoesIntoTheBodyAsItsTypeWritesIt() {
    HostTlsServer api(path("api.pem"), path("api.key"));
    QVERIFY(api.port() != 0);
    const QString apiHost = "api.example.test:" + QString::number(api.port());
    QTemporaryDir data, workspace;
    const QByteArray clientSecret = "client&secret=with \"quotes\"+more";
    auto stored = setSecret({"CLIENT_SECRET", "--host", apiHost, "--in-body"}, clientSecret, data.path());
    QVERIFY2(stored.exitCode == 0, stored.err.constData());
    stored = setSecret({"GH_TOKEN", "--host", apiHost}, kGithubValue, data.path());
    QVERIFY2(stored.exitCode == 0, stored.err.constData());
    const auto listed = runWarren({"secrets", "list"}, data.path());
    QVERIFY2(listed.out.contains("CLIENT_SECRET\t" + apiHost.toUtf8() + "\t-\tin bodies\t"), listed.out.constData());

    const QString script = data.filePath("script.json");
    const QString post = "curl -sS -X POST https://" + apiHost + "/token ";
    QVERIFY(writeScript(script, {
        turn("shell", {{"command", (post + "-H 'Content-Type: application/json' "
                                           "-d \"{\\\"secret\\\": \\\"$CLIENT_SECRET\\\", \\\"gh\\\": \\\"$GH_TOKEN\\\"}\" 2>&1")
                                              .toStdString()}}),
        turn("shell", {{"command", (post + "--data-urlencode \"client_secret=$CLIENT_SECRET\" 2>&1").toStdString()}}),
        // A body streamed from stdin goes chunked: read whole, replaced, sent on with its length.
        turn("shell", {{"command", ("printf '{\"chunked\": \"%s\"}' \"$CLIENT_SECRET\" | " + post +
                                    "-H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' "
                                    "--data-binary @- 2>&1")
                                       .toStdString()}}),
        turn("finish", {{"summary", "exchanged"}}),
    }));
    const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(),
                                   // The first address refuses (nothing listens there): the proxy goes on.
                                   "--secret", "CLIENT_SECRET,GH_TOKEN", "--resolve", apiHost + ":127.0.0.2,127.0.0.1",
                                   "--egress-ca", path("api.pem"), "exchange a token"},
                                  data.path());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(api.bodies.size(), 3);
    const json sent = json::parse(api.bodies[0].toStdString(), nullptr, false);
    QVERIFY2(sent.is_object(), api.bodies[0].constData());
    QCOMPARE(sent.value("secret", ""), clientSecret.toStdString()); // escaped for JSON, read back whole
    QVERIFY2(sent.value("gh", "").rfind("warren-secret-", 0) == 0, api.bodies[0].constData()); // headers only
    QCOMPARE(QUrl::fromPercentEncoding(api.bodies[1].mid(api.bodies[1].indexOf('=') + 1)).toUtf8(), clientSecret);
    QVERIFY2(api.bodies[1].startsWith("client_secret=client%26secret%3D"), api.bodies[1].constData());
    const json chunked = json::parse(api.bodies[2].toStdString(), nullptr, false);
    QVERIFY2(chunked.is_object() && chunked.value("chunked", "") == clientSecret.toStdString(), api.bodies[2].constData());
    QVERIFY2(!api.heads[2].toLower().contains("transfer-encoding") &&
                 api.heads[2].toLower().contains("content-length: " + QByteArray::number(api.bodies[2].size())),
             api.heads[2].constData());
    bool recorded = false;
    for (const auto& event : jsonLines(result.out))
        if (event.value("type", "") == "network_request" && event["data"].contains("secrets")) {
            QCOMPARE(event["data"]["secrets"], json({"CLIENT_SECRET"}));
            QCOMPARE(event["data"].value("address", ""), std::string("127.0.0.1"));
            recorded = true;
        }
    QVERIFY(recorded);
    QVERIFY(!result.out.contains(clientSecret) && !result.err.contains(clientSecret));
    const QStringList holding = filesHolding(data.path(), clientSecret) + filesHolding(workspace.path(), clientSecret);
    QVERIFY2(holding.isEmpty(), qPrintable(holding.join(", ")));
}

void TestControlSecrets::aSecretNotStoredIsAClearError() {
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    QVERIFY(writeScript(script, {turn("finish", {{"summary", "never runs"}})}));
    const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(),
                                   "--secret", "NOT_STORED", "do it"},
                                  data.path());
    QVERIFY(result.exitCode != 0);
    const QByteArray all = result.out + result.err;
    QVERIFY2(all.contains("no secret NOT_STORED: store it with `warren secrets set NOT_STORED --host HOST`"),
             all.constData());
}

void TestControlSecrets::badSecretsAreUsageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("header without host") << QStringList{"secrets", "set", "A_TOKEN", "--header", "X-Key: {}"}
                                         << "--header and --in-body need --host";
    QTest::newRow("in-body without host") << QStringList{"secrets", "set", "A_TOKEN", "--in-body"}
                                          << "--header and --in-body need --host";
    QTest::newRow("name the sandbox reads") << QStringList{"secrets", "set", "LD_PRELOAD", "--host", "example.com"}
                                            << "LD_PRELOAD is a variable the sandbox or its tools read";
    QTest::newRow("header the proxy owns") << QStringList{"secrets", "set", "A_TOKEN", "--host", "example.com",
                                                          "--header", "Host: {}"}
                                           << "names Host, which the proxy sets itself";
    QTest::newRow("template without {}") << QStringList{"secrets", "set", "A_TOKEN", "--host", "example.com",
                                                        "--header", "Authorization: Bearer"}
                                         << "must hold {} exactly once";
    QTest::newRow("bad host") << QStringList{"secrets", "set", "A_TOKEN", "--host", "exa mple.com"} << "--host:";
    QTest::newRow("run with a bad name") << QStringList{"run", "--secret", "9LIVES", "do it"}
                                         << "letters, digits and '_', not starting with a digit";
    QTest::newRow("resolve without address") << QStringList{"run", "--resolve", "api.example.test:443", "do it"}
                                             << "is not HOST:PORT:ADDRESS";
    QTest::newRow("resolve to a name") << QStringList{"run", "--resolve", "a.test:443:b.test", "do it"}
                                       << "ADDRESS must be an IPv4 or IPv6 address";
}

void TestControlSecrets::badSecretsAreUsageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir data;
    const auto result = runWarren(args, data.path());
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains(message.toUtf8()), result.err.constData());
}

QTEST_GUILESS_MAIN(TestControlSecrets)
#include "tst_control_secrets.moc"
