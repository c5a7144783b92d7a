#include "app/modelproxy/ModelProxy.h"

#include "app/egress/AsciiText.h"
#include "app/modelproxy/IncomingBody.h"
#include "app/modelproxy/KeyMask.h"
#include "app/modelproxy/ModelApiError.h"
#include "app/modelproxy/ModelRequestHead.h"
#include "app/modelproxy/ModelRoute.h"
#include "app/modelproxy/ModelUsage.h"
#include "app/modelproxy/RelayedAnswer.h"
#include "app/providers/HttpFailure.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QHostInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <algorithm>
#include <array>

namespace warren::control {

namespace {

constexpr qint64 kChunk = 64 * 1024;
constexpr qint64 kHighWater = 256 * 1024; // bytes queued towards the CLI before the provider stops being read
constexpr qsizetype kMaxErrorBody = 64 * 1024;

// Request headers never passed on: those of one connection (RFC 9110 7.6.1), those the proxy sets itself
// (Host, Content-Length), every credential the CLI sent (the task token, or anything else it holds), and
// Accept-Encoding, so the answer arrives in a form the proxy can read for its usage and mask the key in.
bool dropsRequestHeader(std::string_view name) {
    static constexpr std::array<std::string_view, 17> kNames = {
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
        "content-length", "expect", "authorization", "proxy-authorization", "x-api-key", "api-key",
        "x-goog-api-key", "cookie", "accept-encoding"};
    const std::string lower = ascii::lowered(name);
    return std::find(kNames.begin(), kNames.end(), lower) != kNames.end();
}

// Answer headers never passed back: the connection's own, the framing the proxy redoes (the body may have
// been decompressed and is re-chunked), and cookies, which name a host the CLI never talks to.
bool dropsAnswerHeader(std::string_view name) {
    static constexpr std::array<std::string_view, 11> kNames = {
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "content-encoding", "set-cookie", "alt-svc"};
    const std::string lower = ascii::lowered(name);
    return std::find(kNames.begin(), kNames.end(), lower) != kNames.end();
}

// The token the CLI sends as its API key: x-api-key (Anthropic) or Authorization: Bearer (OpenAI).
std::string clientToken(const ModelRequestHead& head) {
    if (const auto key = head.header("x-api-key"))
        return std::string(*key);
    if (const auto authorization = head.header("authorization")) {
        const std::string_view value = *authorization;
        if (value.size() > 7 && ascii::lowered(value.substr(0, 7)) == "bearer ")
            return std::string(ascii::trimmed(value.substr(7)));
    }
    return {};
}

bool isTimeout(QNetworkReply::NetworkError error) {
    return error == QNetworkReply::TimeoutError || error == QNetworkReply::ProxyTimeoutError;
}

} // namespace

// One CLI connection: its request, the checks, the upstream call, then the answer streamed back.
class ModelProxy::Connection : public QObject {
public:
    // received: what was read of the request before the proxy got the connection (after a model stream's
    // hello).
    Connection(ModelProxy& proxy, QLocalSocket* client, QByteArray received = {})
        : QObject(&proxy), m_proxy(proxy), m_kind(proxy.m_upstream.kind), m_client(client),
          m_buffer(std::move(received)), m_mask(proxy.m_upstream.apiKey) {
        ++m_proxy.m_open;
        m_client->setParent(this);
        connect(m_client, &QLocalSocket::disconnected, this, &Connection::onClientGone);
        if (m_proxy.m_open > m_proxy.m_limits.maxConnections) {
            refuse(503, "too many connections to this task's model proxy at once (at most " +
                            std::to_string(m_proxy.m_limits.maxConnections) + ")");
            return;
        }
        connect(m_client, &QLocalSocket::readyRead, this, &Connection::onClientData);
        connect(m_client, &QLocalSocket::bytesWritten, this, &Connection::pump);
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, &Connection::onTimeout);
        m_timer.start(m_proxy.m_limits.requestTimeout);
        onClientData();
    }
    ~Connection() override {
        dropReply();
        --m_proxy.m_open;
    }

private:
    enum class Phase { Head, Body, Admitting, Connecting, Waiting, Streaming, Done };

    void onClientData() {
        if (m_phase == Phase::Head) {
            m_buffer += m_client->read(qint64(kMaxModelHeadBytes) + 1 - m_buffer.size()); // one over: too long
            const auto parsed = parseModelRequestHead(std::string_view(m_buffer.constData(), std::size_t(m_buffer.size())),
                                                      m_proxy.m_limits.maxBody);
            if (std::holds_alternative<std::nullopt_t>(parsed))
                return;
            if (const auto* error = std::get_if<ModelHeadError>(&parsed))
                return refuse(error->status, error->message);
            m_head = std::get<ModelRequestHead>(parsed);
            m_body = IncomingBody(m_head, m_proxy.m_limits.maxBody);
            m_body.feed(std::string_view(m_buffer.constData(), std::size_t(m_buffer.size())).substr(m_head.consumed));
            m_buffer.clear();
            if (!onHead())
                return;
            m_phase = Phase::Body;
        }
        if (m_phase != Phase::Body)
            return; // one request per connection: what follows its body is not read
        while (!m_body.complete() && !m_body.error() && m_client->bytesAvailable() > 0) {
            const QByteArray bytes = m_client->read(qint64(m_body.wanted()));
            m_body.feed(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        }
        if (const auto& error = m_body.error())
            return refuse(error->status, error->message);
        if (m_body.complete()) {
            m_bodyBytes = QByteArray::fromStdString(m_body.takeBody());
            onBody();
        }
    }

    // The route and the token; false when the request was answered here.
    bool onHead() {
        m_clock.start();
        m_route = routeModelRequest(m_kind, m_proxy.m_upstream.baseUrl, m_head.method, m_head.path, m_head.hasQuery,
                                    m_head.query);
        if (m_route.action == ModelRoute::Action::Probe) {
            answer("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 0\r\n"
                   "Connection: close\r\n\r\n");
            return false;
        }
        if (m_route.action == ModelRoute::Action::Refuse) {
            refuse(404, "Warren's model proxy does not forward " + m_head.method + " " + m_head.path + "; it takes " +
                            (m_kind == ProviderConfig::Kind::Anthropic
                                 ? "POST /v1/messages and /v1/messages/count_tokens"
                                 : "POST /v1/responses and /v1/chat/completions"));
            return false;
        }
        m_token = clientToken(m_head);
        const std::string& token = m_token;
        if (token.empty()) {
            refuse(401, "no API key: this proxy takes the task's token as the API key (x-api-key or "
                        "Authorization: Bearer)");
            return false;
        }
        if (auto checked = m_proxy.m_checkToken(token); !checked) {
            refuse(401, "the API key is not this task's valid token: " + checked.error().message);
            return false;
        }
        if (m_head.expectContinue && !m_body.complete() && !m_body.error())
            m_client->write("HTTP/1.1 100 Continue\r\n\r\n");
        return true;
    }

    void onBody() {
        m_timer.stop();
        m_call.method = m_head.method;
        m_call.path = m_head.path;
        m_call.model = requestModel(std::string_view(m_bodyBytes.constData(), std::size_t(m_bodyBytes.size())));
        if (!m_route.modelCall || !m_proxy.m_admit)
            return forward();
        m_phase = Phase::Admitting;
        QPointer<Connection> self(this);
        auto answered = std::make_shared<bool>(false);
        m_proxy.m_admit(ModelCallInfo{m_call.method, m_call.path, m_call.model}, [self, answered](Status verdict) {
            if (*answered || !self)
                return;
            *answered = true;
            self->onAdmitted(std::move(verdict));
        });
    }

    void onAdmitted(Status verdict) {
        if (m_phase != Phase::Admitting)
            return;
        if (verdict)
            return forward();
        const int status = verdict.error().code == ErrorCode::Unavailable ? 503 : 403;
        m_call.status = status;
        m_call.error = "refused by Warren: " + verdict.error().message;
        refuse(status, "Warren refused this model call: " + verdict.error().message);
        report();
    }

    void forward() {
        m_phase = Phase::Connecting;
        m_idle.setSingleShot(true);
        m_idle.setInterval(m_proxy.m_limits.idleTimeout);
        connect(&m_idle, &QTimer::timeout, this, &Connection::onIdle, Qt::UniqueConnection);
        m_idle.start();
        const QUrl url(QString::fromStdString(m_route.upstreamUrl));
        if (!m_proxy.m_upstream.access)
            return post(url, {});
        // Resolved here, checked, and the checked address connected to: Qt's own lookup would be a second
        // answer the check never saw (DNS rebinding).
        const QHostAddress literal(url.host());
        if (!literal.isNull())
            return postChecked(url, {literal});
        QHostInfo::lookupHost(url.host(), this, [this, url](const QHostInfo& info) {
            if (m_phase != Phase::Connecting)
                return;
            if (info.error() != QHostInfo::NoError)
                return fail(502, "cannot resolve the model server's host " + url.host().toStdString() + ": " +
                                     info.errorString().toStdString());
            postChecked(url, info.addresses());
        });
    }

    void postChecked(const QUrl& url, const QList<QHostAddress>& addresses) {
        const int port = url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
        std::string inside;
        for (const QHostAddress& address : addresses) {
            if (insideReachable(*m_proxy.m_upstream.access, url.host().toStdString(), address, std::uint16_t(port))) {
                QUrl checked = url;
                checked.setHost(address.toString());
                return post(checked, url.host());
            }
            if (inside.empty())
                inside = address.toString().toStdString();
        }
        fail(403, "the model server at " + m_proxy.m_upstream.baseUrl + " is " +
                      (inside.empty() ? std::string("at no address")
                                      : "inside the server's own host or its networks (" + inside + ")") +
                      ", which a provider a user names is never connected to on a server; use a public endpoint, "
                      "or ask the operator to allow it with warrend serve --allow-internal");
    }

    // url: where to connect; hostName: the name it was reached by (Host, TLS peer), empty when url has it.
    void post(const QUrl& url, const QString& hostName) {
        QNetworkRequest request(url);
        // A redirect would be a second destination nobody checked, and the CLI's answer is the provider's.
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        // The token is Warren's alone: a header that carries it under any other name stays here too.
        for (const ModelRequestHeader& header : m_head.headers)
            if (!dropsRequestHeader(header.name) && header.value.find(m_token) == std::string::npos)
                request.setRawHeader(QByteArray::fromStdString(header.name), QByteArray::fromStdString(header.value));
        if (!hostName.isEmpty() && QHostAddress(hostName).isNull()) {
            const QUrl original(QString::fromStdString(m_route.upstreamUrl));
            const int port = original.port();
            request.setRawHeader("Host", (hostName + (port < 0 ? QString() : ":" + QString::number(port))).toUtf8());
            request.setPeerVerifyName(hostName);
        }
        const std::string& key = m_proxy.m_upstream.apiKey;
        if (!key.empty()) {
            if (m_kind == ProviderConfig::Kind::Anthropic)
                request.setRawHeader("x-api-key", QByteArray::fromStdString(key));
            else
                request.setRawHeader("Authorization", "Bearer " + QByteArray::fromStdString(key));
        }
        m_phase = Phase::Waiting;
        m_reply = m_proxy.m_network->sendCustomRequest(request, QByteArray::fromStdString(m_head.method), m_bodyBytes);
        m_reply->setReadBufferSize(kHighWater);
        connect(m_reply, &QNetworkReply::readyRead, this, &Connection::onUpstreamData);
        connect(m_reply, &QNetworkReply::metaDataChanged, this, &Connection::onUpstreamData);
        connect(m_reply, &QNetworkReply::finished, this, &Connection::onUpstreamFinished);
    }

    // The answer's head, once the provider sent it: its status and headers, the framing redone.
    bool startAnswer() {
        if (m_phase == Phase::Streaming)
            return true;
        const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (m_phase != Phase::Waiting || status == 0)
            return false;
        m_phase = Phase::Streaming;
        m_call.status = status;
        m_call.firstByteMs = m_clock.elapsed();
        const std::string& key = m_proxy.m_upstream.apiKey;
        std::string reason = m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray().toStdString();
        if (reason.empty())
            reason = modelProxyReason(status);
        const QByteArray type = m_reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
        m_usage.emplace(type.contains("text/event-stream"));
        m_chunked = !m_head.http10;
        const std::string head = relayedHead(
            status, reason, m_reply->rawHeaderPairs(), dropsAnswerHeader,
            [&key](std::string text) { return KeyMask::masked(std::move(text), key); },
            m_chunked ? RelayedFraming::Chunked : RelayedFraming::UntilClose);
        m_client->write(head.data(), qint64(head.size()));
        return true;
    }

    void onUpstreamData() {
        if (!m_reply || (m_phase != Phase::Waiting && m_phase != Phase::Streaming))
            return;
        m_idle.start(); // any byte proves the provider is alive
        if (startAnswer())
            pump();
    }

    // Moves what the provider sent to the CLI while the CLI's queue is short; the rest waits in the reply's
    // bounded buffer (and the kernel's), so a slow CLI never fills memory.
    void pump() {
        QNetworkReply* reply = m_reply.data();
        if (m_phase != Phase::Streaming || reply == nullptr)
            return;
        while (reply->bytesAvailable() > 0 && m_client->bytesToWrite() < kHighWater)
            deliver(reply->read(kChunk));
    }

    void deliver(const QByteArray& bytes) {
        const std::string_view view(bytes.constData(), std::size_t(bytes.size()));
        m_usage->feed(view);
        if (m_call.status < 200 || m_call.status >= 300)
            m_errorBody.append(bytes.left(kMaxErrorBody - m_errorBody.size()));
        writeBody(m_mask.feed(view));
    }

    void writeBody(const std::string& bytes) {
        const std::string framed = m_chunked ? relayedChunk(bytes) : bytes;
        m_client->write(framed.data(), qint64(framed.size()));
    }

    void onUpstreamFinished() {
        if (!m_reply || m_phase == Phase::Done)
            return;
        m_idle.stop();
        const QNetworkReply::NetworkError error = m_reply->error();
        const std::string errorText = m_reply->errorString().toStdString();
        if (!startAnswer()) {
            const bool timedOut = isTimeout(error);
            return fail(timedOut ? 504 : 502, "could not reach the model server at " + m_proxy.m_upstream.baseUrl +
                                                  ": " + errorText);
        }
        while (m_reply->bytesAvailable() > 0)
            deliver(m_reply->read(kChunk));
        writeBody(m_mask.finish());
        m_usage->finish();
        const bool httpError = error >= QNetworkReply::ContentAccessDenied && error <= QNetworkReply::UnknownServerError;
        if (m_call.status < 200 || m_call.status >= 300) {
            const std::string text = serverErrorText(m_errorBody);
            m_call.error = "the model server answered " + std::to_string(m_call.status) + (text.empty() ? "" : ": " + text);
        } else if (error != QNetworkReply::NoError && !httpError) {
            // The answer stopped before its end: the CLI sees its stream cut (no final chunk), not a clean end.
            m_call.error = "the model server's answer broke off: " + errorText;
            return finishCall(false);
        }
        finishCall(true);
    }

    void onIdle() {
        if (m_phase == Phase::Streaming) {
            m_call.error = "the model server sent nothing for " +
                           std::to_string(m_proxy.m_limits.idleTimeout.count() / 1000) + " s mid-answer";
            return finishCall(false);
        }
        fail(504, "the model server at " + m_proxy.m_upstream.baseUrl + " sent nothing for " +
                      std::to_string(m_proxy.m_limits.idleTimeout.count() / 1000) + " s");
    }

    // The answer's end: the last chunk when it ended well, else the connection closed under it.
    void finishCall(bool complete) {
        if (m_usage) {
            const ModelUsage& usage = m_usage->usage();
            m_call.inputTokens = usage.inputTokens;
            m_call.outputTokens = usage.outputTokens;
            if (m_call.model.empty())
                m_call.model = usage.model;
        }
        dropReply();
        if (complete && m_chunked)
            m_client->write("0\r\n\r\n");
        report();
        endClient();
    }

    // A forwarded call that got no answer from the provider: answered here, in the API's shape.
    void fail(int status, const std::string& why) {
        dropReply();
        m_call.status = status;
        m_call.error = KeyMask::masked(why, m_proxy.m_upstream.apiKey);
        refuse(status, m_call.error);
        report();
    }

    void onTimeout() {
        if (m_phase == Phase::Head || m_phase == Phase::Body)
            refuse(408, "no complete request arrived within " +
                            std::to_string(m_proxy.m_limits.requestTimeout.count() / 1000) + " s");
    }

    void onClientGone() {
        if (m_phase == Phase::Done)
            return close();
        if (m_phase != Phase::Head && m_phase != Phase::Body && m_phase != Phase::Admitting) {
            m_call.error = "the CLI closed its connection before the answer ended";
            if (m_usage) {
                m_call.inputTokens = m_usage->usage().inputTokens;
                m_call.outputTokens = m_usage->usage().outputTokens;
            }
            dropReply(); // the provider stops working (and billing) for an answer nobody reads
            report();
        }
        m_phase = Phase::Done;
        close();
    }

    void report() {
        if (m_reported)
            return;
        m_reported = true;
        m_call.error = KeyMask::masked(std::move(m_call.error), m_proxy.m_upstream.apiKey);
        m_call.durationMs = m_clock.isValid() ? m_clock.elapsed() : 0;
        emit m_proxy.called(m_call);
    }

    void refuse(int status, const std::string& why) {
        if (m_phase == Phase::Done || m_phase == Phase::Streaming)
            return;
        answer(modelApiErrorAnswer(m_kind, status, KeyMask::masked(why, m_proxy.m_upstream.apiKey)));
    }

    void answer(const std::string& text) {
        m_timer.stop();
        m_client->write(text.data(), qint64(text.size()));
        endClient();
    }

    // The CLI is closed once it has been sent what it is owed, and the connection with it.
    void endClient() {
        m_phase = Phase::Done;
        m_timer.stop();
        m_idle.stop();
        m_client->disconnectFromServer();
        if (m_client->state() == QLocalSocket::UnconnectedState)
            close();
    }

    void dropReply() {
        QNetworkReply* reply = m_reply.data();
        m_reply.clear();
        if (reply == nullptr)
            return;
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
        reply->deleteLater();
    }

    void close() {
        if (m_closing)
            return;
        m_closing = true;
        m_timer.stop();
        m_idle.stop();
        deleteLater();
    }

    ModelProxy& m_proxy;
    ProviderConfig::Kind m_kind;
    QLocalSocket* m_client;
    QPointer<QNetworkReply> m_reply;
    QTimer m_timer; // the request's arrival
    QTimer m_idle;  // the provider's silence
    QElapsedTimer m_clock;
    Phase m_phase = Phase::Head;
    QByteArray m_buffer;
    IncomingBody m_body;
    QByteArray m_bodyBytes; // the whole body, once read
    QByteArray m_errorBody;
    ModelRequestHead m_head;
    ModelRoute m_route;
    std::string m_token; // the task token the CLI presented
    ModelCall m_call;
    KeyMask m_mask;
    std::optional<ModelUsageReader> m_usage;
    bool m_chunked = false;
    bool m_reported = false;
    bool m_closing = false;
};

protocol::ModelCallData modelCallEvent(const ModelCall& call) {
    protocol::ModelCallData data;
    data.path = call.path;
    data.model = call.model;
    data.status = std::uint64_t(std::max(call.status, 0));
    data.inputTokens = call.inputTokens;
    data.outputTokens = call.outputTokens;
    data.durationMs = std::uint64_t(std::max<std::int64_t>(call.durationMs, 0));
    if (call.firstByteMs >= 0)
        data.firstByteMs = std::uint64_t(call.firstByteMs);
    if (!call.error.empty())
        data.error = call.error;
    return data;
}

ModelProxy::ModelProxy(std::string socketPath, ModelUpstream upstream, TokenCheck checkToken, ModelProxyLimits limits)
    : m_socketPath(std::move(socketPath)), m_upstream(std::move(upstream)), m_checkToken(std::move(checkToken)),
      m_limits(limits) {}

Result<std::unique_ptr<ModelProxy>> ModelProxy::listen(const std::string& socketPath, ModelUpstream upstream,
                                                       TokenCheck checkToken, ModelProxyLimits limits) {
    if (upstream.kind != ProviderConfig::Kind::Anthropic && upstream.kind != ProviderConfig::Kind::OpenAi)
        return makeError(ErrorCode::InvalidArgument,
                         "the model proxy forwards to an Anthropic or OpenAI provider, not a scripted one");
    if (!checkToken)
        return makeError(ErrorCode::InvalidArgument, "the model proxy needs a token check");
    std::unique_ptr<ModelProxy> proxy(new ModelProxy(socketPath, std::move(upstream), std::move(checkToken), limits));
    proxy->m_network = new QNetworkAccessManager(proxy.get());
    if (socketPath.empty())
        return proxy;
    proxy->m_server = new QLocalServer(proxy.get());
    proxy->m_server->setSocketOptions(QLocalServer::WorldAccessOption);
    QLocalServer::removeServer(QString::fromStdString(socketPath));
    if (!proxy->m_server->listen(QString::fromStdString(socketPath)))
        return makeError(ErrorCode::System, "the model proxy cannot listen on " + socketPath + ": " +
                                                proxy->m_server->errorString().toStdString());
    connect(proxy->m_server, &QLocalServer::newConnection, proxy.get(), &ModelProxy::accept);
    return proxy;
}

ModelProxy::~ModelProxy() {
    if (m_server)
        m_server->close(); // removes the socket file
    // The connections before the members they use (QObject would delete them after those are gone).
    const QObjectList children = this->children();
    for (QObject* child : children)
        if (child != m_server && child != m_network)
            delete child;
}

void ModelProxy::accept() {
    while (QLocalSocket* client = m_server->nextPendingConnection())
        new Connection(*this, client);
}

void ModelProxy::adopt(UniqueFd connection, const std::string& received) {
    auto* client = new QLocalSocket(this);
    if (!client->setSocketDescriptor(connection.get())) {
        delete client; // closes nothing: the descriptor is still connection's
        return;
    }
    connection.release(); // the socket's now
    new Connection(*this, client, QByteArray::fromStdString(received));
}

} // namespace warren::control
