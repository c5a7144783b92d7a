#pragma once
// One request on one connection, from its first header to the completed callback: what the server's
// libmicrohttpd callbacks forward to. Internal to warren_http.

#include "server/http/ClientConnections.h"
#include "server/http/HttpReply.h"
#include "server/http/HttpRequest.h"
#include "server/http/HttpServerLimits.h"
#include "server/http/Router.h"

#include <QTemporaryFile>
#include <functional>
#include <memory>
#include <microhttpd.h>
#include <optional>
#include <unordered_set>

namespace warren::http {

// What every exchange shares with the server that owns it.
struct ServerContext {
    const Router* router = nullptr;
    HttpServerLimits limits;
    QString uploadDirectory;
    std::function<void()> runSoon; // libmicrohttpd must run after a resume, or the connection sits still
    bool stopping = false;
    std::unordered_set<Exchange*> live;
    ClientConnections connections{{}};
    std::function<void()> deadlinesChanged; // a deadline may now come sooner than the server's timer
};

// Milliseconds on the monotonic clock ClientConnections counts in.
std::int64_t monotonicMs();

struct StreamState {
    ServerContext* context = nullptr;
    MHD_Connection* connection = nullptr;
    QByteArray contentType;
    EventSource source;
    std::function<void()> onClosed;
    QByteArray pending; // the last pull, being copied into libmicrohttpd's buffer
    qsizetype sent = 0;
    bool suspended = false;
    bool open = true;

    void wake();
    void close();
    ssize_t read(char* buffer, size_t max);
};

class Exchange : public std::enable_shared_from_this<Exchange> {
public:
    Exchange(ServerContext& context, MHD_Connection* connection);
    ~Exchange();

    // The access handler's three cases: the headers are in, a piece of the body, the body is complete
    // (or the connection was resumed).
    MHD_Result begin(const char* url, const char* method, const char* version);
    MHD_Result receive(const char* data, size_t* size);
    MHD_Result finish();
    void completed();
    // Resumed only to be closed: the server is stopping.
    void resumeForStop();

    // From HttpReply.
    void deliver(HttpResponse response);
    EventStream openStream(QByteArray contentType, EventSource source, std::function<void()> onClosed);
    bool answered() const { return m_answer.has_value() || m_stream != nullptr || m_queued; }

private:
    MHD_Result refuse(HttpResponse response);         // answers without the handler, any body unread
    MHD_Result refuseAndClose(HttpResponse response); // answers now; nothing after it is read
    MHD_Result queue(const HttpResponse& response);
    MHD_Result queueStream();
    MHD_Result answerOrSleep();
    void resume();
    void readHeadersAndQuery();
    HttpReply makeReply();

    ServerContext& m_context;
    MHD_Connection* m_connection;
    HttpRequest m_request;
    const Route* m_route = nullptr;
    std::unique_ptr<QTemporaryFile> m_bodyFile;
    std::optional<HttpResponse> m_storageFailure; // answered once the rest of the body has been discarded
    std::optional<HttpResponse> m_answer;
    std::shared_ptr<StreamState> m_stream;
    bool m_queued = false;
    bool m_handlerCalled = false;
    bool m_suspended = false;
    std::uint64_t m_bodyBytesSeen = 0; // kept or discarded, for the body's rate
};

} // namespace warren::http
