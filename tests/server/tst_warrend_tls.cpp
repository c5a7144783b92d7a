// warrend over HTTPS, as a client meets it: `warrend serve --tls-cert --tls-key` with a self-signed
// certificate made here by openssl, the client trusting that certificate as its one CA. The API and the
// event stream work; a client that does not trust the certificate, and plain HTTP on the port, get no
// answer; files that do not load stop the start with a message naming the file. (What the HTTP server
// itself does with TLS is tst_http_server's; the flags' parsing is tst_serve_options'.)
#include "tests/support/TestCertificate.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <unistd.h>

using namespace warren::test;
using nlohmann::json;

namespace {

const json kScript = json::parse(R"({"turns": [
  {"content": "Writing the notes.", "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.md", "content": "over tls\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.md"}}]}]})");

quint16 portOf(const QString& url) {
    return static_cast<quint16>(QUrl(url).port());
}

} // namespace

class TestWarrendTls : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void describesItselfOverHttps();
    void runsATaskOverHttps();
    void aClientThatDoesNotTrustTheCertificateFailsTheHandshake_data();
    void aClientThatDoesNotTrustTheCertificateFailsTheHandshake();
    void plainHttpGetsNoAnswer();
    void filesThatDoNotLoadStopTheStart_data();
    void filesThatDoNotLoadStopTheStart();

private:
    QString path(const QString& name) const { return m_scratch.filePath(name); }

    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_scratch;
    QString m_key;
};

void TestWarrendTls::initTestCase() {
    const QString openssl = QStandardPaths::findExecutable("openssl");
    if (openssl.isEmpty())
        QSKIP("needs openssl (packaging/install-deps.sh)");
    QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend here");
    QVERIFY(makeSelfSignedCertificate("127.0.0.1", path("cert.pem"), path("key.pem")));
    QVERIFY(makeSelfSignedCertificate("127.0.0.1", path("other-cert.pem"), path("other-key.pem")));
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_key = m_server->addUser("alice");
    QVERIFY(m_key.startsWith("wrn_"));
    m_server->useTls(path("cert.pem"), path("key.pem"));
    QVERIFY2(m_server->start(&error), qPrintable(error));
    QVERIFY2(m_server->url().startsWith("https://"), qPrintable(m_server->url()));
}

void TestWarrendTls::describesItselfOverHttps() {
    const HttpAnswer answer = m_server->request("GET", "/v1/server", {});
    QVERIFY2(answer.status == 200, qPrintable(answer.error));
    QCOMPARE(answer.json().value("api_version", 0), 1);
    QCOMPARE(m_server->request("GET", "/v1/me", m_key).status, 200);
    QCOMPARE(m_server->request("GET", "/v1/me", {}).status, 401);
}

// Upload, create, the event stream to its end and the patch, all over the one TLS port.
void TestWarrendTls::runsATaskOverHttps() {
    const QString workspace = path("workspace");
    QVERIFY(QDir().mkpath(workspace));
    QFile readme(workspace + "/README.md");
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("# project\n");
    readme.close();
    const QString upload = m_server->upload(m_key, workspace);
    QVERIFY(!upload.isEmpty());
    const json body{{"prompt", "write the notes"}, {"workspace", upload.toStdString()}, {"script", kScript}};
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_key, QByteArray::fromStdString(body.dump()));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString task = QString::fromStdString(created.json().value("id", ""));

    // To the stream's end, not to task_finished: the run's patch is made as it ends, after its last event.
    const auto events = m_server->streamEvents(task, m_key, {});
    QVERIFY(!events.empty());
    QCOMPARE(QString::fromStdString(events.front().value("type", "")), QString("limits_applied"));
    QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));
    for (std::size_t i = 0; i < events.size(); ++i)
        QCOMPARE(events[i].value("seq", std::uint64_t{0}), i + 1);
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + task + "/patch", m_key);
    QCOMPARE(patch.status, 200);
    QVERIFY2(patch.body.contains("+over tls"), patch.body.constData());
}

void TestWarrendTls::aClientThatDoesNotTrustTheCertificateFailsTheHandshake_data() {
    QTest::addColumn<QString>("trusted"); // empty: the system's CAs
    QTest::newRow("the system's CAs") << QString();
    QTest::newRow("another self-signed certificate") << path("other-cert.pem");
}

void TestWarrendTls::aClientThatDoesNotTrustTheCertificateFailsTheHandshake() {
    QFETCH(QString, trusted);
    QSslSocket socket;
    if (!trusted.isEmpty()) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates(QSslCertificate::fromPath(trusted));
        socket.setSslConfiguration(tls);
    }
    socket.connectToHostEncrypted("127.0.0.1", portOf(m_server->url()));
    QVERIFY(!socket.waitForEncrypted(30000));
    bool untrusted = false;
    for (const QSslError& error : socket.sslHandshakeErrors())
        untrusted = untrusted || error.error() == QSslError::SelfSignedCertificate;
    QVERIFY2(untrusted, qPrintable(socket.errorString()));
    socket.abort();
    // The refused handshake cost the server nothing: the trusting client is served.
    QCOMPARE(m_server->request("GET", "/v1/server", {}).status, 200);
}

// Plaintext on the TLS port is no TLS handshake: the connection ends without an HTTP answer.
void TestWarrendTls::plainHttpGetsNoAnswer() {
    QTcpSocket socket;
    socket.connectToHost("127.0.0.1", portOf(m_server->url()));
    QVERIFY(socket.waitForConnected(30000));
    socket.write("GET /v1/server HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    QByteArray received;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(30000))
        received += socket.readAll();
    received += socket.readAll();
    QCOMPARE(socket.state(), QAbstractSocket::UnconnectedState);
    QVERIFY2(!received.startsWith("HTTP/"), received.constData());
    QVERIFY(!received.contains("api_version"));
    QCOMPARE(m_server->request("GET", "/v1/server", {}).status, 200);
}

void TestWarrendTls::filesThatDoNotLoadStopTheStart_data() {
    QTest::addColumn<QString>("certificate");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("named"); // the file the message must name
    QTest::addColumn<bool>("needsUnprivileged");
    const QString cert = path("cert.pem"), key = path("key.pem");
    QTest::newRow("missing certificate") << path("missing.pem") << key << path("missing.pem") << false;
    QTest::newRow("certificate is a directory") << m_scratch.path() << key << m_scratch.path() << false;
    QTest::newRow("unreadable key") << cert << path("unreadable-key.pem") << path("unreadable-key.pem")
                                    << true;
    QTest::newRow("key in place of the certificate") << key << key << key << false;
    QTest::newRow("key of another certificate")
        << cert << path("other-key.pem") << path("other-key.pem") << false;
    QTest::newRow("certificate of another key")
        << path("other-cert.pem") << key << path("other-cert.pem") << false;
}

// Last: each row stops the server and starts it with files that must not load.
void TestWarrendTls::filesThatDoNotLoadStopTheStart() {
    QFETCH(QString, certificate);
    QFETCH(QString, key);
    QFETCH(QString, named);
    QFETCH(bool, needsUnprivileged);
    if (needsUnprivileged) {
        if (::geteuid() == 0)
            QSKIP("root reads a file without read permission");
        QVERIFY(QFile::copy(path("key.pem"), key));
        QVERIFY(QFile::setPermissions(key, QFileDevice::WriteOwner));
    }
    m_server->stop();
    m_server->useTls(certificate, key);
    QString error;
    QVERIFY(!m_server->start(&error));
    const int code = m_server->exitCode();
    QVERIFY2(code > 0, qPrintable(QString::number(code) + ": " + error));
    const QString output = QString::fromUtf8(m_server->serverOutput());
    QVERIFY2(output.contains("warrend serve: ") && output.contains(named), qPrintable(output));
    QVERIFY(!output.contains("listening on"));
}

QTEST_GUILESS_MAIN(TestWarrendTls)
#include "tst_warrend_tls.moc"
