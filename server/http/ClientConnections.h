#pragma once
// The server's own account of its connections, for what libmicrohttpd 0.9.75 cannot do itself: a deadline
// for a request's head counted from the connection's accept (libmicrohttpd only has an idle timer, which
// one byte every few seconds resets forever), a minimum rate for a request's body, a connection limit per
// client (ClientAddressKey: an IPv6 /64 is one client), and room for a newcomer when the server is full.
// Pure bookkeeping: times are milliseconds on a monotonic clock, sockets are numbers, and the server acts
// on what this says (it shuts a socket down, and libmicrohttpd closes that connection).

#include <QByteArray>
#include <QHash>
#include <cstdint>
#include <optional>
#include <vector>

namespace warren::http {

struct ClientConnectionLimits {
    unsigned maxConnections = 0;             // the server's connection cap
    unsigned maxPerClient = 0;               // 0 = none
    std::int64_t headMs = 0;                 // accept (or the previous answer) → the head's last line
    std::int64_t bodyGraceMs = 0;            // the head → the body, at no rate at all
    std::uint64_t minBodyBytesPerSecond = 0; // past the grace, the body keeps up at least this rate
};

class ClientConnections {
public:
    enum class Phase {
        Head,      // waiting for a request's head, or reading it
        Body,      // reading a request's body
        Answering, // the handler, a deferred answer, a response or an event stream: never cut here
    };

    explicit ClientConnections(ClientConnectionLimits limits) : m_limits(limits) {}

    // Whether a connection from this client may be opened now.
    bool admits(const QByteArray& clientKey) const;
    void opened(const void* connection, int socket, QByteArray clientKey, std::int64_t now);
    void closed(const void* connection);

    void headReceived(const void* connection, bool bodyFollows, std::int64_t now);
    void bodyReceived(const void* connection, std::uint64_t bytesSoFar);
    void answering(const void* connection);
    void answered(const void* connection, std::int64_t now); // the next request's head is awaited

    // The sockets of connections past their deadline; each is returned once.
    std::vector<int> expire(std::int64_t now);
    std::optional<std::int64_t> nextDeadline() const;

    // Past the cap (the newcomer counted), the socket of the connection that gives way to the newcomer: from
    // the client holding the most connections, its oldest that is waiting for or sending a request (never
    // one being answered). Nothing when within the cap or every other connection is being answered.
    std::optional<int> makeRoomFor(const void* newcomer);

    unsigned count() const { return static_cast<unsigned>(m_records.size()); }
    unsigned countOf(const QByteArray& clientKey) const { return m_perClient.value(clientKey); }

private:
    struct Record {
        int socket = -1;
        QByteArray clientKey;
        std::int64_t openedAt = 0;
        std::uint64_t sequence = 0; // accept order, for "oldest" among equal times
        Phase phase = Phase::Head;
        std::int64_t phaseStart = 0;
        std::int64_t deadline = 0; // for Head and Body
        bool cut = false;          // shut down already, waiting for libmicrohttpd to close it
    };

    ClientConnectionLimits m_limits;
    QHash<const void*, Record> m_records;
    QHash<QByteArray, unsigned> m_perClient;
    std::uint64_t m_sequence = 0;
};

} // namespace warren::http
