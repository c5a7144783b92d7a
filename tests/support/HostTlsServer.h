#pragma once
// An HTTPS server on this machine's loopback for the secrets tests, with a certificate the caller made for
// a name (it trusts nothing, asks for no client certificate). Each request is answered with the value of
// its Authorization and X-Api-Key headers in the body ("authorization=...\nx-api-key=...\n"), as a server
// that echoes what it was sent; the heads and bodies it received are kept, so a test knows exactly what
// reached it.
// Runs on the test's event loop (runWarren keeps it turning).

#include <QFile>
#include <QHash>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QStringList>

namespace warren::test {

class HostTlsServer : public QObject {
public:
    HostTlsServer(const QString& certificateFile, const QString& keyFile) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificateChain(QSslCertificate::fromPath(certificateFile));
        QFile key(keyFile);
        if (key.open(QIODevice::ReadOnly))
            tls.setPrivateKey(QSslKey(&key, QSsl::Rsa));
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
        m_server.setSslConfiguration(tls);
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::pendingConnectionAvailable, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { answer(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, [this, socket] {
                    m_pending.remove(socket);
                    socket->deleteLater();
                });
                answer(socket);
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    QList<QByteArray> heads;  // each request's head, as received
    QList<QByteArray> bodies; // and its body (by Content-Length), as received

private:
    static QByteArray header(const QByteArray& head, const QByteArray& name) {
        for (const QByteArray& line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == name)
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }

    void answer(QTcpSocket* socket) {
        QByteArray& head = m_pending[socket];
        head += socket->readAll();
        const qsizetype end = head.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        const qsizetype length = header(head.left(end), "content-length").toLongLong();
        if (head.size() < end + 4 + length)
            return; // the rest of the body is still on its way
        heads << head.left(end);
        bodies << head.mid(end + 4, length);
        const QByteArray body = "authorization=" + header(head, "authorization") + "\nx-api-key=" +
                                header(head, "x-api-key") + "\n";
        socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        socket->disconnectFromHost();
    }

    QSslServer m_server;
    QHash<QTcpSocket*, QByteArray> m_pending;
};

} // namespace warren::test
