#include "tests/support/HeldServer.h"

#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

namespace warren::test {

namespace {

QByteArray response(int status, const QByteArray& body) {
    return "HTTP/1.1 " + QByteArray::number(status) + (status == 200 ? " OK" : " Not Found") +
           "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\nConnection: keep-alive\r\n\r\n" + body;
}

// warrend's answer to path for an account with nothing in it.
QByteArray answerFor(const QByteArray& path) {
    if (path == "/v1/server")
        return response(200, R"({"name":"warrend","version":"held","sandbox":"bwrap"})");
    if (path == "/v1/me")
        return response(200, R"({"user":"held","tenant":"default","quotas":{},"usage":{"active_tasks":0,"tokens_this_month":0}})");
    if (path == "/v1/tasks")
        return response(200, R"({"tasks":[]})");
    if (path.startsWith("/v1/me/provider-keys"))
        return response(200, R"({"provider_keys":[]})");
    if (path.contains("/events"))
        return response(200, R"({"events":[],"last_seq":0})");
    return response(404, R"({"error":{"code":"not_found","message":"no such task"}})");
}

} // namespace

HeldServer::HeldServer(int holdMs, QObject* parent) : QObject(parent), m_holdMs(holdMs) {
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = m_server.nextPendingConnection()) {
            socket->setParent(this);
            connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readFrom(socket); });
        }
    });
}

bool HeldServer::listen() { return m_server.listen(QHostAddress::LocalHost); }

QString HeldServer::url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }

void HeldServer::readFrom(QTcpSocket* socket) {
    // One request per head; the faces send no body this double needs (it reads and drops one).
    QByteArray buffer = socket->property("buffer").toByteArray() + socket->readAll();
    while (true) {
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            break;
        const QByteArray head = buffer.left(end);
        qsizetype length = 0;
        for (const QByteArray& line : head.split('\n'))
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        if (buffer.size() < end + 4 + length)
            break;
        buffer.remove(0, end + 4 + length);
        QByteArray path = head.split(' ').value(1);
        path = path.left(path.indexOf('?') < 0 ? path.size() : path.indexOf('?'));
        Held held{socket, answerFor(path)};
        if (path == "/v1/server" || path == "/v1/me")
            answer(held);
        else if (m_holdMs >= 0)
            QTimer::singleShot(m_holdMs, socket, [this, held] { answer(held); });
        else
            m_held.push_back(held);
    }
    socket->setProperty("buffer", buffer);
}

void HeldServer::answer(const Held& held) {
    held.socket->write(held.answer);
    ++m_answered;
}

void HeldServer::release() {
    for (const Held& held : m_held)
        answer(held);
    m_held.clear();
    m_holdMs = 0;
}

} // namespace warren::test
