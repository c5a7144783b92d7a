#pragma once
// The HTTP edge of warrend: libmicrohttpd driven from Qt's event loop on one thread (a notifier on its
// epoll descriptor and a timer from its next timeout), so every handler runs on the thread that owns the
// server and needs no locks. Routes, limits and TLS as given; answers, deferred answers and Server-Sent
// Events through HttpReply.

#include "common/Result.h"
#include "server/http/HttpServerLimits.h"
#include "server/http/Router.h"
#include "server/http/TlsFiles.h"

#include <QHostAddress>
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

struct MHD_Daemon;
struct MHD_Connection;
class QSocketNotifier;

namespace warren::http {

struct ServerContext;

class HttpServer : public QObject {
    Q_OBJECT
public:
    // uploadDirectory receives the bodies of RouteOptions::bodyToFile routes.
    HttpServer(Router router, QString uploadDirectory, HttpServerLimits limits = {},
               QObject* parent = nullptr);
    ~HttpServer() override;

    // Starts serving; port 0 picks a free one. Returns the port bound.
    Result<quint16> listen(const QHostAddress& host, quint16 port,
                           const std::optional<TlsFiles>& tls = std::nullopt);
    // Ends every exchange (streams see onClosed, deferred answers become 503) and stops listening.
    void close();
    // Connections open now, as libmicrohttpd counts them.
    unsigned connectionCount() const;

private:
    void run();
    void armTimer();
    void armDeadlines();
    void cutLateClients(); // past ClientConnections' deadlines

    std::unique_ptr<Router> m_router;
    std::unique_ptr<ServerContext> m_context;
    TlsPem m_tls; // libmicrohttpd reads the PEM from here
    MHD_Daemon* m_daemon = nullptr;
    std::unique_ptr<QSocketNotifier> m_notifier;
    QTimer m_timer;
    QTimer m_deadlineTimer;
    QString m_lastLog;
};

} // namespace warren::http
