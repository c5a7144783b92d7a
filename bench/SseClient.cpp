#include "bench/SseClient.h"

namespace warren::bench {

SseClient::SseClient(OnEvent onEvent, std::function<void()> onEnd)
    : m_onEvent(std::move(onEvent)), m_onEnd(std::move(onEnd)) {
    QObject::connect(&m_socket, &QTcpSocket::readyRead, [this] { read(); });
    QObject::connect(&m_socket, &QTcpSocket::disconnected,
                     [this] { end(m_complete ? QString() : "the server closed the stream before its end"); });
    QObject::connect(&m_socket, &QTcpSocket::errorOccurred, [this] {
        if (!m_complete)
            end(m_socket.errorString());
    });
}

void SseClient::start(const QHostAddress& source, quint16 port, const QByteArray& path,
                      const QByteArray& key) {
    if (!m_socket.bind(source, 0))
        return end("cannot bind to " + source.toString() + ": " + m_socket.errorString());
    m_socket.connectToHost(QHostAddress::LocalHost, port);
    m_socket.write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n" +
                   "Authorization: Bearer " + key + "\r\n\r\n");
}

void SseClient::read() {
    const auto received = WallClock::now();
    m_raw += m_socket.readAll();
    if (!m_headRead && !readHead())
        return;
    readChunks();
    readFrames(received);
    if (m_complete)
        end({});
}

bool SseClient::readHead() {
    const qsizetype end = m_raw.indexOf("\r\n\r\n");
    if (end < 0)
        return false;
    const QByteArray head = m_raw.left(end);
    m_raw.remove(0, end + 4);
    m_headRead = true;
    if (!head.startsWith("HTTP/1.1 200 ")) {
        this->end("the stream was refused: " + QString::fromUtf8(head.left(head.indexOf('\r'))));
        return false;
    }
    if (!head.toLower().contains("\r\ntransfer-encoding: chunked")) {
        this->end("the stream is not chunked");
        return false;
    }
    return true;
}

void SseClient::readChunks() {
    for (;;) {
        if (m_chunkEnds) {
            if (m_raw.size() < 2)
                return;
            m_raw.remove(0, 2);
            m_chunkEnds = false;
        }
        if (m_chunkLeft == 0) {
            const qsizetype line = m_raw.indexOf("\r\n");
            if (line < 0)
                return;
            bool ok = false;
            m_chunkLeft = m_raw.left(line).toLongLong(&ok, 16);
            m_raw.remove(0, line + 2);
            if (!ok)
                return end("a chunk's size is not hexadecimal");
            if (m_chunkLeft == 0) {
                m_complete = true;
                return;
            }
        }
        const qint64 taken = std::min<qint64>(m_chunkLeft, m_raw.size());
        if (taken == 0)
            return;
        m_body += m_raw.left(taken);
        m_raw.remove(0, taken);
        m_chunkLeft -= taken;
        m_chunkEnds = m_chunkLeft == 0;
    }
}

void SseClient::readFrames(WallClock::time_point received) {
    qsizetype start = 0, end = 0;
    while ((end = m_body.indexOf("\n\n", start)) >= 0) {
        const QByteArray frame = m_body.mid(start, end - start);
        start = end + 2;
        for (const QByteArray& line : frame.split('\n'))
            if (line.startsWith("data: "))
                m_onEvent(line.mid(6), received);
    }
    m_body.remove(0, start);
}

void SseClient::end(const QString& problem) {
    if (m_ended)
        return;
    m_ended = true;
    m_problem = problem;
    m_socket.abort();
    m_onEnd();
}

} // namespace warren::bench
