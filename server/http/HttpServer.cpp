#include "server/http/HttpServer.h"

#include "server/http/ClientAddressKey.h"
#include "server/http/Exchange.h"

#include <QLoggingCategory>
#include <QSocketNotifier>
#include <arpa/inet.h>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <vector>

Q_LOGGING_CATEGORY(lcHttp, "warren.http")

namespace warren::http {

namespace {

MHD_Result onAccess(void* cls, MHD_Connection* connection, const char* url, const char* method,
                    const char* version, const char* uploadData, size_t* uploadSize, void** state) {
    auto* slot = static_cast<std::shared_ptr<Exchange>*>(*state);
    if (!slot) {
        slot = new std::shared_ptr<Exchange>(
            std::make_shared<Exchange>(*static_cast<ServerContext*>(cls), connection));
        *state = slot;
        return (*slot)->begin(url, method, version);
    }
    if (*uploadSize > 0)
        return (*slot)->receive(uploadData, uploadSize);
    return (*slot)->finish();
}

void onCompleted(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode) {
    auto* slot = static_cast<std::shared_ptr<Exchange>*>(*state);
    if (!slot)
        return;
    *state = nullptr;
    (*slot)->completed();
    delete slot;
}

// Ends a connection from outside libmicrohttpd: with its socket shut down, its next read sees the end and
// libmicrohttpd closes it as if the client had left (completed callbacks and all).
void cut(ServerContext& context, int socket, const char* why) {
    qCDebug(lcHttp) << "closing a connection:" << why;
    ::shutdown(socket, SHUT_RDWR);
    context.runSoon();
}

// Called before libmicrohttpd takes a connection on: the per-client limit (an IPv6 /64 is one client).
MHD_Result admit(void* cls, const sockaddr* address, socklen_t) {
    const auto& context = *static_cast<ServerContext*>(cls);
    return context.connections.admits(clientAddressKey(address)) ? MHD_YES : MHD_NO;
}

void onConnection(void* cls, MHD_Connection* connection, void**, MHD_ConnectionNotificationCode code) {
    auto& context = *static_cast<ServerContext*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        context.connections.closed(connection);
        return;
    }
    const auto* socket = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    const auto* address = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    context.connections.opened(connection, socket ? socket->connect_fd : -1,
                               address ? clientAddressKey(address->client_addr) : QByteArray(),
                               monotonicMs());
    // At the cap libmicrohttpd stops accepting, and a newcomer would wait for whoever holds the places to
    // leave: the client holding the most gives up one it is not being answered on.
    if (const auto victim = context.connections.makeRoomFor(connection); victim && *victim >= 0)
        cut(context, *victim, "the server is full and its client holds the most connections");
    context.deadlinesChanged();
}

// One place past the cap, for the newcomer that makes another connection give way (onConnection): at its
// own limit libmicrohttpd stops accepting, and a newcomer would wait in the backlog for a place that the
// clients holding them need never give up.
unsigned daemonConnectionLimit(const HttpServerLimits& limits) {
    return limits.maxConnections + 1;
}

ClientConnectionLimits connectionLimits(const HttpServerLimits& limits) {
    return {limits.maxConnections, limits.maxConnectionsPerIp, std::int64_t{limits.headTimeoutSeconds} * 1000,
            std::int64_t{limits.bodyGraceSeconds} * 1000, limits.minBodyBytesPerSecond};
}

// The path stays as sent: the router decodes each segment, so "%2F" cannot split one.
size_t keepEscaped(void*, MHD_Connection*, char* text) {
    return std::strlen(text);
}

void onLog(void* cls, const char* format, va_list arguments) {
    char line[512];
    std::vsnprintf(line, sizeof line, format, arguments);
    QString& last = *static_cast<QString*>(cls);
    last = QString::fromUtf8(line).trimmed();
    qCDebug(lcHttp) << last;
}

struct SocketAddress {
    sockaddr_storage storage{};
    bool ipv6 = false;
};

std::optional<SocketAddress> socketAddress(const QHostAddress& host, quint16 port) {
    SocketAddress address;
    bool ok = false;
    if (const quint32 ipv4 = host.toIPv4Address(&ok); ok) {
        auto* in = reinterpret_cast<sockaddr_in*>(&address.storage);
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
        in->sin_addr.s_addr = htonl(ipv4);
        return address;
    }
    if (host.protocol() != QAbstractSocket::IPv6Protocol)
        return std::nullopt;
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address.storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    const Q_IPV6ADDR bytes = host.toIPv6Address();
    std::memcpy(&in6->sin6_addr, bytes.c, sizeof bytes.c);
    address.ipv6 = true;
    return address;
}

} // namespace

HttpServer::HttpServer(Router router, QString uploadDirectory, HttpServerLimits limits, QObject* parent)
    : QObject(parent), m_router(std::make_unique<Router>(std::move(router))),
      m_context(std::make_unique<ServerContext>()) {
    m_context->router = m_router.get();
    m_context->limits = limits;
    m_context->uploadDirectory = std::move(uploadDirectory);
    m_context->connections = ClientConnections(connectionLimits(limits));
    m_context->runSoon = [this] {
        m_timer.start(0);
    };
    m_context->deadlinesChanged = [this] {
        armDeadlines();
    };
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HttpServer::run);
    m_deadlineTimer.setSingleShot(true);
    m_deadlineTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &HttpServer::cutLateClients);
}

HttpServer::~HttpServer() {
    close();
}

Result<quint16> HttpServer::listen(const QHostAddress& host, quint16 port,
                                   const std::optional<TlsFiles>& tls) {
    if (m_daemon)
        return makeError(ErrorCode::InvalidArgument, "The HTTP server is already listening.");
    auto address = socketAddress(host, port);
    if (!address)
        return makeError(
            ErrorCode::InvalidArgument,
            QStringLiteral("Cannot listen on %1: not an IP address.").arg(host.toString()).toStdString());

    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (address->ipv6)
        flags |= MHD_USE_IPv6;
    std::vector<MHD_OptionItem> tlsOptions;
    if (tls) {
        auto pem = loadTlsFiles(*tls);
        if (!pem)
            return pem.error();
        m_tls = std::move(*pem);
        flags |= MHD_USE_TLS;
        tlsOptions.push_back(
            {MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(m_tls.certificate.constData())});
        tlsOptions.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(m_tls.key.constData())});
    }
    tlsOptions.push_back({MHD_OPTION_END, 0, nullptr});

    const HttpServerLimits& limits = m_context->limits;
    m_lastLog.clear();
    // The per-client limit is admit()'s, not MHD_OPTION_PER_IP_CONNECTION_LIMIT, which counts each IPv6
    // address apart.
    m_daemon = MHD_start_daemon(
        flags, 0, &admit, m_context.get(), &onAccess, m_context.get(), MHD_OPTION_EXTERNAL_LOGGER, &onLog,
        &m_lastLog, // first, or it misses the early messages
        MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&address->storage), MHD_OPTION_CONNECTION_LIMIT,
        daemonConnectionLimit(limits), MHD_OPTION_NOTIFY_CONNECTION, &onConnection, m_context.get(),
        MHD_OPTION_CONNECTION_TIMEOUT, limits.idleTimeoutSeconds, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        limits.connectionMemoryBytes, MHD_OPTION_NOTIFY_COMPLETED, &onCompleted, nullptr,
        MHD_OPTION_UNESCAPE_CALLBACK, &keepEscaped, nullptr,
        // a request line and headers that RFC 9112 allows and nothing looser (e.g. HTTP/1.1 needs Host)
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_ARRAY, tlsOptions.data(), MHD_OPTION_END);
    if (!m_daemon) {
        return makeError(
            ErrorCode::System,
            QStringLiteral("Cannot listen on %1:%2: %3.")
                .arg(host.toString())
                .arg(port)
                .arg(m_lastLog.isEmpty() ? QStringLiteral("libmicrohttpd did not start") : m_lastLog)
                .toStdString());
    }
    const int epoll = MHD_get_daemon_info(m_daemon, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd;
    m_notifier = std::make_unique<QSocketNotifier>(epoll, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &HttpServer::run);
    armTimer();
    return MHD_get_daemon_info(m_daemon, MHD_DAEMON_INFO_BIND_PORT)->port;
}

void HttpServer::close() {
    if (!m_daemon)
        return;
    // libmicrohttpd cannot stop with suspended connections: wake each one to be answered or cut.
    m_context->stopping = true;
    const std::unordered_set<Exchange*> live = m_context->live;
    for (Exchange* exchange : live)
        exchange->resumeForStop();
    MHD_run(m_daemon);
    m_notifier.reset();
    m_timer.stop();
    MHD_stop_daemon(m_daemon); // its completed callbacks may arm the deadline timer again
    m_deadlineTimer.stop();
    m_daemon = nullptr;
    m_context->stopping = false;
}

unsigned HttpServer::connectionCount() const {
    return m_daemon ? MHD_get_daemon_info(m_daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS)->num_connections : 0;
}

void HttpServer::run() {
    if (!m_daemon)
        return;
    const unsigned limit = daemonConnectionLimit(m_context->limits);
    const bool wasFull = connectionCount() >= limit;
    MHD_run(m_daemon);
    // At the limit libmicrohttpd takes its listening socket out of epoll, and puts it back only at the
    // start of a later run: without that run, clients waiting in the backlog would wait for other traffic.
    if (wasFull && connectionCount() < limit) {
        m_timer.start(0);
        return;
    }
    armTimer();
}

void HttpServer::armTimer() {
    MHD_UNSIGNED_LONG_LONG milliseconds = 0;
    if (MHD_get_timeout(m_daemon, &milliseconds) != MHD_YES) {
        m_timer.stop();
        return;
    }
    m_timer.start(
        static_cast<int>(std::min<MHD_UNSIGNED_LONG_LONG>(milliseconds, std::numeric_limits<int>::max())));
}

} // namespace warren::http

namespace warren::http {

void HttpServer::armDeadlines() {
    const std::optional<std::int64_t> next = m_context->connections.nextDeadline();
    if (!next) {
        m_deadlineTimer.stop();
        return;
    }
    const std::int64_t wait = std::max<std::int64_t>(0, *next - monotonicMs());
    // Only ever sooner: a deadline that moved later is found still ahead when the timer fires.
    if (m_deadlineTimer.isActive() && m_deadlineTimer.remainingTime() <= wait)
        return;
    m_deadlineTimer.start(static_cast<int>(std::min<std::int64_t>(wait, std::numeric_limits<int>::max())));
}

void HttpServer::cutLateClients() {
    for (const int socket : m_context->connections.expire(monotonicMs()))
        cut(*m_context, socket, "its request's head or body did not arrive in time");
    armDeadlines();
}

} // namespace warren::http
