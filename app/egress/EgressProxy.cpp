#include "app/egress/EgressProxy.h"

#include "app/egress/ProxyHead.h"

#include <QHostInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>
#include <algorithm>

namespace warren::control {

namespace {

constexpr qint64 kChunk = 64 * 1024;
constexpr qint64 kHighWater = 256 * 1024; // bytes queued towards one side before its source stops being read
constexpr int kHeadTimeoutMs = 30'000;
constexpr int kConnectTimeoutMs = 15'000;

const char* reasonPhrase(int status) {
    switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

std::string describeRules(const std::vector<HostRule>& rules) {
    std::string text;
    for (const auto& rule : rules) {
        if (!text.empty())
            text += ", ";
        const bool v6 = rule.literalAddress && rule.host.find(':') != std::string::npos;
        text += (rule.wildcard ? "*." : "") + (v6 ? "[" + rule.host + "]" : rule.host);
        if (rule.port)
            text += ":" + std::to_string(*rule.port);
    }
    return text;
}

} // namespace

// One client connection: its head, the decision, the upstream connection, then the bytes both ways.
class EgressProxy::Connection : public QObject {
public:
    Connection(EgressProxy& proxy, QLocalSocket* client) : QObject(&proxy), m_proxy(proxy), m_client(client) {
        ++m_proxy.m_open;
        m_client->setParent(this);
        m_client->setReadBufferSize(kHighWater);
        connect(m_client, &QLocalSocket::disconnected, this, &Connection::onClientGone);
        if (m_proxy.m_open > kMaxConnections) {
            refuse(503, "too many connections through this task's egress proxy at once (at most " +
                            std::to_string(kMaxConnections) + ")");
            return;
        }
        connect(m_client, &QLocalSocket::readyRead, this, &Connection::onClientData);
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            if (m_phase == Phase::Head)
                refuse(408, "no complete request arrived within " + std::to_string(kHeadTimeoutMs / 1000) + " s");
            else
                refuse(504, "no connection to " + m_request.host + " within " +
                                std::to_string(kConnectTimeoutMs / 1000) + " s");
        });
        m_timer.start(kHeadTimeoutMs);
        onClientData();
    }
    ~Connection() override { --m_proxy.m_open; }

private:
    enum class Phase { Head, Asking, Resolving, Connecting, Piping, Done };

    void onClientData() {
        if (m_phase == Phase::Piping)
            return pump(m_client, m_upstream);
        if (m_phase != Phase::Head)
            return; // held in the socket's bounded buffer until the upstream is there
        m_buffer += m_client->read(qint64(kMaxProxyHeadBytes) + 1 - m_buffer.size()); // one over: too long
        const auto parsed = parseProxyHead(std::string_view(m_buffer.constData(), std::size_t(m_buffer.size())));
        if (std::holds_alternative<std::nullopt_t>(parsed))
            return;
        if (const auto* error = std::get_if<ProxyHeadError>(&parsed))
            return refuse(error->status, error->message);
        const auto& head = std::get<ParsedProxyHead>(parsed);
        m_request = head.request;
        m_early = m_buffer.mid(qsizetype(head.consumed)); // body (or tunnel) bytes sent along with the head
        m_buffer.clear();
        if (const HostRule* rule = matchHost(m_proxy.m_rules, m_request.host, m_request.port))
            return resolve(*rule);
        const auto name = normalizeHost(m_request.host);
        if (m_proxy.m_asker && name && !name->address)
            return ask(name->host);
        refuse(403, m_request.host + ":" + std::to_string(m_request.port) + " is not in this task's network allow-list (" +
                        describeRules(m_proxy.m_rules) + "); run the task with that host added to --network allow:..." +
                        (m_proxy.m_asker ? " (an address is never asked about: list it)" : ""));
    }

    // The asker decides; the connection waits, its client's bytes held in the socket's bounded buffer.
    void ask(const std::string& host) {
        m_phase = Phase::Asking;
        m_timer.stop(); // the asker bounds the wait
        m_proxy.m_asker->ask(
            host, m_request.port, m_request.method,
            [self = QPointer<Connection>(this), proxy = QPointer<EgressProxy>(&m_proxy),
             rule = HostRule{host, false, false, m_request.port}](const EgressAsker::Verdict& verdict) {
                if (verdict.allowed && verdict.forTask && proxy)
                    proxy->addRule(rule);
                Connection* connection = self.data();
                if (!connection || connection->m_phase != Phase::Asking)
                    return;
                if (!verdict.allowed)
                    return connection->refuse(403, verdict.why);
                connection->resolve(rule);
            });
    }

    void resolve(const HostRule& rule) {
        m_rule = rule;
        m_phase = Phase::Resolving;
        m_timer.start(kConnectTimeoutMs); // resolving and connecting
        QHostAddress literal;
        if (m_rule.literalAddress && literal.setAddress(QString::fromStdString(m_request.host)))
            return connectTo({literal});
        if (const PinnedAddress* pinned = findPinned(m_proxy.m_pinned, m_request.host, m_request.port)) {
            m_pinned = true;
            return connectTo(QList<QHostAddress>(pinned->addresses.begin(), pinned->addresses.end()));
        }
        QHostInfo::lookupHost(QString::fromStdString(m_request.host), this, [this](const QHostInfo& info) {
            if (m_phase != Phase::Resolving)
                return; // refused meanwhile (timed out)
            if (info.error() != QHostInfo::NoError)
                return refuse(502, "cannot resolve " + m_request.host + ": " + info.errorString().toStdString());
            connectTo(info.addresses());
        });
    }

    void connectTo(const QList<QHostAddress>& resolved) {
        std::string inside;
        for (const QHostAddress& address : resolved) {
            // A pinned address is the user's own choice for this task, as an address literal in the list is.
            const bool allowed =
                m_pinned ? !m_proxy.m_inside.operatorOnly ||
                               insideReachable(m_proxy.m_inside, m_request.host, address, m_request.port)
                         : addressAllowed(m_rule, m_request.host, address, m_request.port, m_proxy.m_inside);
            if (allowed)
                m_candidates.push_back(address);
            else if (inside.empty())
                inside = address.toString().toStdString();
        }
        if (m_candidates.empty())
            return refuse(403, m_request.host + " resolves only to addresses inside this machine or its networks (" +
                                   inside + "), which an allow-list never reaches" +
                                   (m_proxy.m_inside.operatorOnly
                                        ? " on a server unless its operator allows that destination "
                                          "(warrend serve --allow-internal)"
                                        : ""));
        if (m_request.tunnel && m_proxy.m_interceptor &&
            m_proxy.m_interceptor->intercepts(m_request.host, m_request.port))
            return handOver();
        m_phase = Phase::Connecting;
        m_upstream = new QTcpSocket(this);
        m_upstream->setReadBufferSize(kHighWater);
        connect(m_upstream, &QTcpSocket::connected, this, &Connection::onConnected);
        connect(m_upstream, &QTcpSocket::errorOccurred, this, &Connection::onUpstreamError);
        tryNext();
    }

    // The interceptor opens this connection itself: the decision is reported here, the client is its now.
    void handOver() {
        m_timer.stop();
        m_phase = Phase::Done;
        m_address = m_candidates.front().toString().toStdString();
        report(true, "");
        disconnect(m_client, nullptr, this, nullptr);
        m_client->setParent(nullptr);
        m_client->write("HTTP/1.1 200 Connection established\r\n\r\n");
        m_proxy.m_interceptor->take(std::exchange(m_client, nullptr), std::exchange(m_early, {}), m_request,
                                    std::move(m_candidates));
        close();
    }

    void tryNext() {
        const QHostAddress address = m_candidates.front();
        m_candidates.erase(m_candidates.begin());
        m_address = address.toString().toStdString();
        m_upstream->connectToHost(address, m_request.port);
    }

    void onUpstreamError(QAbstractSocket::SocketError error) {
        if (m_phase == Phase::Connecting) {
            if (!m_candidates.empty()) {
                m_upstream->abort();
                return tryNext();
            }
            return refuse(502, "cannot connect to " + m_request.host + ":" + std::to_string(m_request.port) + " (" +
                                   m_address + "): " + m_upstream->errorString().toStdString());
        }
        if (error == QAbstractSocket::RemoteHostClosedError)
            return onUpstreamGone();
        close();
    }

    void onConnected() {
        m_timer.stop();
        m_phase = Phase::Piping;
        report(true, "");
        connect(m_upstream, &QTcpSocket::readyRead, this, [this] { pump(m_upstream, m_client); });
        connect(m_upstream, &QTcpSocket::bytesWritten, this, [this] { pump(m_client, m_upstream); });
        connect(m_client, &QLocalSocket::bytesWritten, this, [this] { pump(m_upstream, m_client); });
        connect(m_upstream, &QTcpSocket::disconnected, this, &Connection::onUpstreamGone);
        if (m_request.tunnel)
            m_client->write("HTTP/1.1 200 Connection established\r\n\r\n");
        else
            m_upstream->write(m_request.upstreamHead.data(), qint64(m_request.upstreamHead.size()));
        m_upstream->write(m_early);
        m_early.clear();
        pump(m_client, m_upstream);
        if (m_clientGone)
            onClientGone();
    }

    // Moves what from has to to, while to's queue is short; the rest waits in from's bounded buffer (and the
    // kernel's), so a fast side never fills memory while the other side is slow.
    void pump(QIODevice* from, QIODevice* to) {
        while (from->bytesAvailable() > 0 && to->bytesToWrite() < kHighWater)
            to->write(from->read(kChunk));
    }

    // Qt's sockets cannot half-close: when one side ends, what it sent is passed on whole and the other side
    // is closed once written.
    void onClientGone() {
        m_clientGone = true;
        if (m_phase != Phase::Piping) {
            if (m_phase == Phase::Head || m_phase == Phase::Asking)
                close(); // the question stays for the user; its answer finds no connection
            return; // resolving or connecting: onConnected passes on what the client sent, then ends
        }
        while (m_client->bytesAvailable() > 0)
            m_upstream->write(m_client->read(kChunk));
        m_upstream->disconnectFromHost();
        if (m_upstream->state() == QAbstractSocket::UnconnectedState)
            close();
        else
            connect(m_upstream, &QTcpSocket::disconnected, this, &Connection::close, Qt::UniqueConnection);
    }

    void onUpstreamGone() {
        if (m_phase != Phase::Piping)
            return;
        while (m_upstream->bytesAvailable() > 0)
            m_client->write(m_upstream->read(kChunk));
        endClient();
    }

    // The client is closed once it has written what it holds, and the connection with it.
    void endClient() {
        m_phase = Phase::Done;
        m_client->disconnectFromServer();
        if (m_client->state() == QLocalSocket::UnconnectedState)
            close();
        else
            connect(m_client, &QLocalSocket::disconnected, this, &Connection::close, Qt::UniqueConnection);
    }

    void refuse(int status, const std::string& why) {
        if (m_phase == Phase::Done)
            return;
        report(false, why);
        m_phase = Phase::Done; // before the abort, whose signals must find the connection ended
        m_timer.stop();
        if (m_upstream)
            m_upstream->abort();
        const std::string body = "warren: " + why + "\n";
        const std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) +
                                   "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        m_client->write(answer.data(), qint64(answer.size()));
        endClient();
    }

    void report(bool allowed, const std::string& why) {
        EgressDecision decision{m_request.method, m_request.host, m_request.port, allowed, allowed ? m_address : "",
                                why};
        emit m_proxy.decided(decision);
    }

    void close() {
        if (m_closing)
            return;
        m_closing = true;
        m_timer.stop();
        deleteLater();
    }

    EgressProxy& m_proxy;
    QLocalSocket* m_client;
    QTcpSocket* m_upstream = nullptr;
    QTimer m_timer;
    Phase m_phase = Phase::Head;
    QByteArray m_buffer;
    QByteArray m_early;
    ProxyRequest m_request;
    HostRule m_rule; // the one that let the request through (a copy: addRule may grow the list meanwhile)
    std::vector<QHostAddress> m_candidates;
    std::string m_address;
    bool m_clientGone = false;
    bool m_closing = false;
    bool m_pinned = false; // the host's address came from --resolve
};

EgressProxy::EgressProxy(std::string socketPath, std::vector<HostRule> rules, InsideAccess inside,
                         std::vector<PinnedAddress> pinned)
    : m_socketPath(std::move(socketPath)), m_rules(std::move(rules)), m_inside(std::move(inside)),
      m_pinned(std::move(pinned)) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::listen(const std::string& socketPath, std::vector<HostRule> rules,
                                                         InsideAccess inside, std::vector<PinnedAddress> pinned) {
    std::unique_ptr<EgressProxy> proxy(
        new EgressProxy(socketPath, std::move(rules), std::move(inside), std::move(pinned)));
    proxy->m_server = new QLocalServer(proxy.get());
    proxy->m_server->setSocketOptions(QLocalServer::WorldAccessOption);
    QLocalServer::removeServer(QString::fromStdString(socketPath));
    if (!proxy->m_server->listen(QString::fromStdString(socketPath)))
        return makeError(ErrorCode::System, "the egress proxy cannot listen on " + socketPath + ": " +
                                                proxy->m_server->errorString().toStdString());
    connect(proxy->m_server, &QLocalServer::newConnection, proxy.get(), &EgressProxy::accept);
    return proxy;
}

EgressProxy::~EgressProxy() {
    if (m_server)
        m_server->close(); // removes the socket file
    // The connections before the members they use (QObject would delete them after those are gone).
    const QObjectList children = this->children();
    for (QObject* child : children)
        if (child != m_server)
            delete child;
}

void EgressProxy::addRule(const HostRule& rule) {
    if (std::find(m_rules.begin(), m_rules.end(), rule) == m_rules.end())
        m_rules.push_back(rule);
}

void EgressProxy::accept() {
    while (QLocalSocket* client = m_server->nextPendingConnection())
        new Connection(*this, client);
}

} // namespace warren::control
