#pragma once
// How a handler answers: a handle it may keep and use from a later event-loop turn (a deferred answer), or
// turn into a Server-Sent Events stream. All on the thread that owns the HttpServer; no locks.

#include "server/http/HttpResponse.h"

#include <QByteArray>
#include <functional>
#include <memory>
#include <optional>

namespace warren::http {

class Exchange;
struct StreamState;
struct ReplyToken;

// The stream's cursor. The server calls it only when the socket has room for more, so nothing piles up
// for a client that does not read. It returns the next bytes (whole SSE frames), an empty array for
// "nothing yet" (the connection sleeps until EventStream::wake()), or nothing to end the stream.
using EventSource = std::function<std::optional<QByteArray>()>;

// The owner's handle on an open stream. Copies share the stream; it outlives the connection harmlessly.
class EventStream {
public:
    EventStream() = default;
    // There is more to send: a sleeping connection pulls from its source again.
    void wake() const;
    // False once the client has gone, the stream ended or the server closed.
    bool isOpen() const;

private:
    friend class Exchange;
    explicit EventStream(std::weak_ptr<StreamState> state) : m_state(std::move(state)) {}
    std::weak_ptr<StreamState> m_state;
};

class HttpReply {
public:
    // Answers the request, now or later. A second answer is ignored. When the last copy of an unanswered
    // reply goes away, the client gets a 500 rather than a connection that hangs.
    void send(HttpResponse response) const;
    // Answers 200 text/event-stream and starts pulling from source. onClosed runs once, when the stream
    // ends for any reason (the client went away, it was cut for not reading, the server stopped), so the
    // owner drops its cursor. A client that went away while its stream slept is noticed at the next wake.
    EventStream startEvents(EventSource source, std::function<void()> onClosed = {}) const;
    // The same stream with another media type: a Kubernetes watch (the API server double in tests/support)
    // is one JSON document per line, application/json.
    EventStream startStream(QByteArray contentType, EventSource source, std::function<void()> onClosed = {}) const;
    bool answered() const;

private:
    friend class Exchange;
    explicit HttpReply(std::shared_ptr<ReplyToken> token) : m_token(std::move(token)) {}
    std::shared_ptr<ReplyToken> m_token;
};

} // namespace warren::http
