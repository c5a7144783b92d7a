#pragma once
// One client of warrend's event stream on a socket of its own, as a browser's EventSource is: a GET of
// .../events/stream over HTTP/1.1, the chunked body decoded, each event's `data:` handed on with the time
// its bytes arrived (taken once per read, before anything is parsed). The socket is bound to a source
// address given by the caller: all of 127.0.0.0/8 is loopback, and warrend allows 64 connections per
// address, so hundreds of clients on one machine come from several addresses, as they would on a network.

#include <QByteArray>
#include <QHostAddress>
#include <QString>
#include <QTcpSocket>
#include <chrono>
#include <functional>

namespace warren::bench {

class SseClient {
public:
    using WallClock = std::chrono::system_clock;
    using OnEvent = std::function<void(const QByteArray& data, WallClock::time_point received)>;

    // onEvent for every event; onEnd once, when the stream ended or failed (problem() says which).
    SseClient(OnEvent onEvent, std::function<void()> onEnd);
    void start(const QHostAddress& source, quint16 port, const QByteArray& path, const QByteArray& key);

    bool complete() const { return m_complete; } // the server ended the stream (its last chunk)
    const QString& problem() const { return m_problem; }

private:
    void read();
    bool readHead();
    void readChunks();
    void readFrames(WallClock::time_point received);
    void end(const QString& problem);

    QTcpSocket m_socket;
    OnEvent m_onEvent;
    std::function<void()> m_onEnd;
    QByteArray m_raw;  // bytes as they came
    QByteArray m_body; // the decoded body not yet cut into frames
    bool m_headRead = false;
    qint64 m_chunkLeft = 0;   // bytes of the current chunk still to come
    bool m_chunkEnds = false; // the CRLF after a chunk's data is next
    bool m_complete = false;
    bool m_ended = false;
    QString m_problem;
};

} // namespace warren::bench
