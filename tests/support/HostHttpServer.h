#pragma once
// A web server on this machine's loopback for the egress tests: answers every request with one line naming
// its request line ("hello from the host: GET /path HTTP/1.1") and remembers the request lines, every byte
// received and the connections, so a test knows exactly what reached the host. Runs on the test's event
// loop (runWarren keeps it turning).

#include <QHash>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>

namespace warren::test {

class HostHttpServer : public QObject {
public:
    HostHttpServer() {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++connections;
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { answer(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, [this, socket] {
                    m_pending.remove(socket);
                    socket->deleteLater();
                });
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    QStringList requests;
    QByteArray received;
    int connections = 0;

private:
    void answer(QTcpSocket* socket) {
        const QByteArray data = socket->readAll();
        received += data;
        QByteArray& head = m_pending[socket];
        head += data;
        if (!head.contains("\r\n\r\n"))
            return;
        const QByteArray requestLine = head.left(head.indexOf("\r\n"));
        requests << QString::fromUtf8(requestLine);
        const QByteArray body = "hello from the host: " + requestLine + "\n";
        socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QHash<QTcpSocket*, QByteArray> m_pending;
};

} // namespace warren::test
