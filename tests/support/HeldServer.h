#pragma once
// A test double of a warrend that is slow or stuck: it answers who it is (GET /v1/server, GET /v1/me) at
// once, and holds every other request for holdMs before its answer (negative: until release()). The answers
// are warrend's shapes for an account with no tasks and no keys, so a face opened on it works, only slowly.
// For the window's tests and its blocking benchmark; HTTP/1.1 with keep-alive, on 127.0.0.1.

#include <QByteArray>
#include <QObject>
#include <QTcpServer>
#include <QString>
#include <vector>

class QTcpSocket;

namespace warren::test {

class HeldServer : public QObject {
    Q_OBJECT
public:
    explicit HeldServer(int holdMs, QObject* parent = nullptr);
    bool listen();
    QString url() const;
    int held() const { return static_cast<int>(m_held.size()); } // requests not answered yet
    int answered() const { return m_answered; }
    void release(); // answers every request held, in order

private:
    struct Held {
        QTcpSocket* socket;
        QByteArray answer;
    };
    void readFrom(QTcpSocket* socket);
    void answer(const Held& held);

    int m_holdMs;
    QTcpServer m_server;
    std::vector<Held> m_held;
    int m_answered = 0;
};

} // namespace warren::test
