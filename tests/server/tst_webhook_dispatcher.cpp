// WebhookDispatcher with real receivers on loopback (allowed as the operator's --allow-internal would): a
// receiver that accepts and never answers holds only its own hook, whose queue stops at kMaxQueuedDeliveries
// (the rest dropped and counted), while another hook's delivery goes through meanwhile; without the
// operator's word an address inside is refused, never connected to, and not retried; an https receiver whose
// certificate nobody signed gets no byte of the delivery.
#include "app/metrics/EngineMetrics.h"
#include "server/webhooks/WebhookDispatcher.h"
#include "server/webhooks/WebhookPolicy.h"
#include "tests/support/TestCertificate.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <vector>

using namespace warren;
using namespace warren::server;

namespace {

// Accepts connections; answers 204 to each whole request unless silent (then it holds them unanswered).
class Receiver : public QObject {
public:
    explicit Receiver(bool silent) : m_silent(silent) {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++connections;
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    m_bytes[socket] += socket->readAll();
                    const QByteArray& bytes = m_bytes[socket];
                    const qsizetype end = bytes.indexOf("\r\n\r\n");
                    if (m_silent || end < 0 || !bytes.mid(end + 4).endsWith("}"))
                        return;
                    ++answered;
                    socket->write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
                    socket->disconnectFromHost();
                });
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    int connections = 0;
    int answered = 0;

private:
    bool m_silent;
    QTcpServer m_server;
    QHash<QTcpSocket*, QByteArray> m_bytes;
};

WebhookTarget target(const std::string& id, quint16 port, const char* scheme = "http") {
    auto url = parseHttpUrl(std::string(scheme) + "://127.0.0.1:" + std::to_string(port) + "/hook");
    return {id, url ? *url : HttpUrl{}, "whsec_test"};
}

wire::WebhookDelivery delivery(int n) {
    return {"whd-" + std::to_string(n), wire::WebhookEvent::TaskFinished, "2026-12-06T18:00:00.000Z",
            "t-000000000001", "succeeded"};
}

control::InsideAccess loopbackAllowed() {
    auto allowed = control::parseInsideDestinations("127.0.0.1");
    return {true, allowed ? *allowed : std::vector<control::InsideDestination>{}};
}

} // namespace

class TestWebhookDispatcher : public QObject {
    Q_OBJECT

private slots:
    void aDeadReceiverHoldsOnlyItsOwnBoundedQueue() {
        control::EngineMetrics metrics;
        WebhookDispatcher dispatcher(loopbackAllowed(), metrics);
        Receiver dead(true), alive(false);
        const int sent = int(kMaxQueuedDeliveries) + 44;
        for (int n = 0; n < sent; ++n)
            dispatcher.enqueue(target("wh-dead", dead.port()), delivery(n));
        dispatcher.enqueue(target("wh-alive", alive.port()), delivery(1000));
        // The live hook's delivery goes through while the dead one's first attempt hangs.
        QTRY_COMPARE_WITH_TIMEOUT(dispatcher.deliveries("wh-alive").delivered, std::uint64_t(1), 5000);
        QCOMPARE(alive.answered, 1);
        QTRY_COMPARE_WITH_TIMEOUT(dead.connections, 1, 5000); // one attempt at a time for a hook
        const auto deadCounts = dispatcher.deliveries("wh-dead");
        QCOMPARE(deadCounts.delivered, std::uint64_t(0));
        QCOMPARE(deadCounts.failed, std::uint64_t(44)); // past the queue's bound, the newest are dropped
        QVERIFY2(deadCounts.lastError.find("already wait") != std::string::npos,
                 deadCounts.lastError.c_str());
        QCOMPARE(metrics.webhookDeliveries().value({"dropped"}), 44.0);
        QCOMPARE(metrics.webhookDeliveries().value({"delivered"}), 1.0);
    }

    void anAddressInsideIsRefusedAndNotRetried() {
        control::EngineMetrics metrics;
        WebhookDispatcher dispatcher({true, {}}, metrics); // no --allow-internal
        Receiver receiver(false);
        dispatcher.enqueue(target("wh-inside", receiver.port()), delivery(1));
        QTRY_COMPARE_WITH_TIMEOUT(dispatcher.deliveries("wh-inside").failed, std::uint64_t(1), 5000);
        QCOMPARE(receiver.connections, 0);
        QCOMPARE(metrics.webhookDeliveries().value({"refused"}), 1.0);
    }

    // https is verified against the system's CAs: a receiver whose certificate nobody signed gets no byte
    // of the delivery, and the attempt fails saying why.
    void anUntrustedCertificateGetsNothing() {
        if (!QSslSocket::supportsSsl() || QStandardPaths::findExecutable("openssl").isEmpty())
            QSKIP("needs TLS in Qt and the openssl command");
        QTemporaryDir dir;
        const QString certificate = dir.filePath("cert.pem"), key = dir.filePath("key.pem");
        QVERIFY(test::makeSelfSignedCertificate("127.0.0.1", certificate, key));
        QFile certificateFile(certificate), keyFile(key);
        QVERIFY(certificateFile.open(QIODevice::ReadOnly) && keyFile.open(QIODevice::ReadOnly));
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(certificateFile.readAll()));
        tls.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Rsa));
        QSslServer server;
        server.setSslConfiguration(tls);
        QVERIFY(server.listen(QHostAddress::LocalHost));
        int handshakes = 0;
        QByteArray plain;
        connect(&server, &QSslServer::startedEncryptionHandshake, this, [&](QSslSocket* socket) {
            ++handshakes;
            connect(socket, &QSslSocket::readyRead, this, [&plain, socket] { plain += socket->readAll(); });
        });

        control::EngineMetrics metrics;
        WebhookDispatcher dispatcher(loopbackAllowed(), metrics);
        dispatcher.enqueue(target("wh-tls", server.serverPort(), "https"), delivery(1));
        QTRY_VERIFY_WITH_TIMEOUT(!dispatcher.deliveries("wh-tls").lastError.empty(), 10000);
        const std::string why = dispatcher.deliveries("wh-tls").lastError;
        QVERIFY2(why.find("certificate") != std::string::npos || why.find("SSL") != std::string::npos,
                 why.c_str());
        QVERIFY(handshakes >= 1);
        QVERIFY2(plain.isEmpty(), plain.constData());
        QCOMPARE(dispatcher.deliveries("wh-tls").delivered, std::uint64_t(0));
        QCOMPARE(metrics.webhookRetries().value({}), 1.0); // a failed attempt, to be tried again
    }
};

QTEST_GUILESS_MAIN(TestWebhookDispatcher)
#include "tst_webhook_dispatcher.moc"
