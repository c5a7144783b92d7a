#include "app/secretproxy/SecretProxy.h"

#include "app/egress/AsciiText.h"
#include "app/modelproxy/IncomingBody.h"
#include "app/modelproxy/KeyMask.h"
#include "app/modelproxy/ModelApiError.h"
#include "app/modelproxy/ModelRequestHead.h"
#include "app/modelproxy/RelayedAnswer.h"
#include "app/secretproxy/TlsServerSession.h"

#include <QLocalSocket>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QSslConfiguration>
#include <QTimer>
#include <QUrl>
#include <array>

namespace warren::control {

namespace {

constexpr qint64 kChunk = 64 * 1024;
constexpr qint64 kHighWater = 256 * 1024; // bytes queued towards the sandbox before the host stops being read
constexpr std::uint64_t kMaxBody = 32u * 1024 * 1024;
constexpr int kRequestTimeoutMs = 30'000;
constexpr int kIdleTimeoutMs = 300'000;

// Request headers never passed on: the connection's own (RFC 9110 7.6.1), what the request to the host sets
// itself (Host, Content-Length), and Accept-Encoding, so the answer arrives in a form the mask can read.
bool dropsRequestHeader(std::string_view name) {
    static constexpr std::array<std::string_view, 12> kNames = {
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
        "content-length", "expect", "proxy-authorization", "accept-encoding"};
    return std::find(kNames.begin(), kNames.end(), ascii::lowered(name)) != kNames.end();
}

// Answer headers never passed back: the connection's own and the framing redone here.
bool dropsAnswerHeader(std::string_view name) {
    static constexpr std::array<std::string_view, 10> kNames = {
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "content-encoding", "alt-svc"};
    return std::find(kNames.begin(), kNames.end(), ascii::lowered(name)) != kNames.end();
}

// Every secret's value, wherever the host's answer holds it, back to the placeholder the sandbox knows.
class Masks {
public:
    explicit Masks(const std::vector<TaskSecret>& secrets) {
        for (const TaskSecret& secret : secrets) {
            m_pairs.emplace_back(secret.secret.value, secret.placeholder);
            m_streams.emplace_back(secret.secret.value, secret.placeholder);
        }
    }
    std::string feed(std::string bytes) {
        for (KeyMask& stream : m_streams)
            bytes = stream.feed(bytes);
        return bytes;
    }
    std::string finish() {
        std::string bytes;
        for (KeyMask& stream : m_streams)
            bytes = stream.feed(bytes) + stream.finish();
        return bytes;
    }
    std::string masked(std::string text) const {
        for (const auto& [value, placeholder] : m_pairs)
            text = KeyMask::masked(std::move(text), value, placeholder);
        return text;
    }

private:
    std::vector<std::pair<std::string, std::string>> m_pairs; // value, placeholder
    std::vector<KeyMask> m_streams;
};

} // namespace

// One connection from the sandbox: TLS, one request, the request to the host, the answer streamed back.
class SecretProxy::Exchange : public QObject {
public:
    Exchange(SecretProxy& proxy, QLocalSocket* client, QByteArray early, const ProxyRequest& request,
             std::vector<QHostAddress> addresses)
        : QObject(&proxy), m_proxy(proxy), m_client(client), m_masks(proxy.m_secrets),
          m_addresses(std::move(addresses)) {
        ++m_proxy.m_open;
        m_request.host = request.host;
        m_request.port = request.port;
        m_request.address = m_addresses.front().toString().toStdString();
        m_client->setParent(this);
        m_client->setReadBufferSize(kHighWater);
        connect(m_client, &QLocalSocket::disconnected, this, &Exchange::onClientGone);
        if (m_proxy.m_open > kMaxExchanges) {
            m_request.error = "too many connections to hosts with secrets at once (at most " +
                              std::to_string(kMaxExchanges) + ")";
            end();
            return;
        }
        auto context = m_proxy.m_authority->serverContext(request.host);
        if (!context) {
            m_request.error = context.error().message;
            end();
            return;
        }
        m_tls = std::make_unique<TlsServerSession>(*context);
        connect(m_client, &QLocalSocket::readyRead, this, &Exchange::onClientData);
        connect(m_client, &QLocalSocket::bytesWritten, this, &Exchange::pump);
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, &Exchange::onTimeout);
        m_timer.start(kRequestTimeoutMs);
        m_early = std::move(early);
        onClientData();
    }
    ~Exchange() override {
        dropReply();
        --m_proxy.m_open;
    }

private:
    enum class Phase { Head, Body, Waiting, Streaming, Done };

    void onClientData() {
        QByteArray bytes = std::exchange(m_early, {}) + m_client->readAll();
        auto plaintext = m_tls->receive(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        flush();
        if (!plaintext) {
            m_request.error = plaintext.error().message + " (does the client trust the task's certificate "
                                                          "authority? SSL_CERT_FILE and NODE_EXTRA_CA_CERTS name it)";
            return end();
        }
        if (m_phase == Phase::Head) {
            m_buffer += *plaintext;
            const auto parsed = parseModelRequestHead(m_buffer, kMaxBody);
            if (std::holds_alternative<std::nullopt_t>(parsed))
                return;
            if (const auto* error = std::get_if<ModelHeadError>(&parsed))
                return refuse(error->status, error->message);
            m_head = std::get<ModelRequestHead>(parsed);
            m_request.method = m_head.method;
            m_request.path = m_head.path;
            m_body = IncomingBody(m_head, kMaxBody);
            m_body.feed(std::string_view(m_buffer).substr(m_head.consumed));
            m_buffer.clear();
            m_phase = Phase::Body;
            if (m_head.expectContinue && !m_body.complete() && !m_body.error())
                sendPlain("HTTP/1.1 100 Continue\r\n\r\n");
        } else if (m_phase == Phase::Body) {
            m_body.feed(*plaintext);
        }
        if (m_phase != Phase::Body)
            return;
        if (const auto& error = m_body.error())
            return refuse(error->status, error->message);
        if (m_body.complete())
            forward();
    }

    void forward() {
        m_timer.stop();
        m_phase = Phase::Waiting;
        std::vector<ModelRequestHeader> headers;
        for (const ModelRequestHeader& header : m_head.headers)
            if (!dropsRequestHeader(header.name))
                headers.push_back(header);
        const auto bound = secretsBoundTo(m_proxy.m_secrets, m_request.host, m_request.port);
        std::string body = m_body.takeBody();
        const std::vector<std::string> inBody = injectIntoBody(body, m_head.header("content-type").value_or(""),
                                                               m_head.header("content-encoding").value_or(""), bound);
        InjectedHeaders injected = injectSecrets(std::move(headers), bound);
        m_request.secrets = std::move(injected.used);
        for (const std::string& name : inBody)
            if (std::find(m_request.secrets.begin(), m_request.secrets.end(), name) == m_request.secrets.end())
                m_request.secrets.push_back(name);
        m_outgoingHeaders = std::move(injected.headers);
        m_outgoingBody = QByteArray::fromStdString(body);
        send();
    }

    // The request to the next of the host's addresses.
    void send() {
        const QHostAddress& address = m_addresses.at(m_tried);
        m_request.address = address.toString().toStdString();
        QUrl url;
        url.setScheme("https");
        url.setHost(address.toString());
        url.setPort(m_request.port);
        url.setPath(QString::fromStdString(m_head.path), QUrl::TolerantMode);
        if (m_head.hasQuery)
            url.setQuery(QString::fromStdString(m_head.query), QUrl::TolerantMode);
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        // The sandbox's client keeps its own cookies: none is added from, or saved to, this end's jar.
        request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
        request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
        request.setTransferTimeout(kIdleTimeoutMs);
        request.setSslConfiguration(m_proxy.m_upstreamTls);
        request.setPeerVerifyName(QString::fromStdString(m_request.host));
        const QString host = QString::fromStdString(m_request.host);
        const bool v6 = host.contains(':');
        request.setRawHeader("Host", ((v6 ? "[" + host + "]" : host) +
                                      (m_request.port == 443 ? QString() : ":" + QString::number(m_request.port)))
                                         .toUtf8());
        for (const ModelRequestHeader& header : m_outgoingHeaders)
            request.setRawHeader(QByteArray::fromStdString(header.name), QByteArray::fromStdString(header.value));
        m_reply = m_proxy.m_network->sendCustomRequest(request, QByteArray::fromStdString(m_head.method), m_outgoingBody);
        m_reply->setReadBufferSize(kHighWater);
        connect(m_reply, &QNetworkReply::metaDataChanged, this, &Exchange::onUpstreamData);
        connect(m_reply, &QNetworkReply::readyRead, this, &Exchange::onUpstreamData);
        connect(m_reply, &QNetworkReply::finished, this, &Exchange::onUpstreamFinished);
    }

    // The answer's head, once the host sent it: its status and headers, the framing redone, values masked.
    bool startAnswer() {
        if (m_phase == Phase::Streaming)
            return true;
        const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (m_phase != Phase::Waiting || status == 0)
            return false;
        m_phase = Phase::Streaming;
        m_request.status = status;
        const QByteArray reason = m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
        const bool bodiless = m_head.method == "HEAD" || status == 204 || status == 304;
        m_chunked = !m_head.http10 && !bodiless;
        const std::string head = relayedHead(
            status, reason.toStdString(), m_reply->rawHeaderPairs(), dropsAnswerHeader,
            [this](std::string text) { return m_masks.masked(std::move(text)); },
            bodiless ? RelayedFraming::NoBody : m_chunked ? RelayedFraming::Chunked : RelayedFraming::UntilClose);
        sendPlain(head);
        return true;
    }

    void onUpstreamData() {
        if (m_reply && startAnswer())
            pump();
    }

    // Moves what the host sent to the sandbox while the sandbox's queue is short; the rest waits in the
    // reply's bounded buffer (and the kernel's).
    void pump() {
        QNetworkReply* reply = m_reply.data();
        if (m_phase != Phase::Streaming || reply == nullptr)
            return;
        while (reply->bytesAvailable() > 0 && m_client->bytesToWrite() < kHighWater)
            writeBody(m_masks.feed(reply->read(kChunk).toStdString()));
    }

    void writeBody(const std::string& bytes) {
        if (!bytes.empty())
            sendPlain(m_chunked ? relayedChunk(bytes) : bytes);
    }

    void onUpstreamFinished() {
        if (!m_reply || m_phase == Phase::Done)
            return;
        const QNetworkReply::NetworkError error = m_reply->error();
        const std::string errorText = m_masks.masked(m_reply->errorString().toStdString());
        if (!startAnswer()) {
            // Nothing was sent where no connection was made: the host's next address, as a browser would.
            const bool notConnected = error == QNetworkReply::ConnectionRefusedError ||
                                      error == QNetworkReply::UnknownNetworkError;
            if (notConnected && m_tried + 1 < m_addresses.size()) {
                dropReply();
                ++m_tried;
                return send();
            }
            const int status = error == QNetworkReply::TimeoutError || error == QNetworkReply::OperationCanceledError
                                   ? 504
                                   : 502;
            return refuse(status, "could not reach " + m_request.host + ":" + std::to_string(m_request.port) + ": " +
                                      errorText);
        }
        while (m_reply->bytesAvailable() > 0)
            writeBody(m_masks.feed(m_reply->read(kChunk).toStdString()));
        writeBody(m_masks.finish());
        const bool httpError = error >= QNetworkReply::ContentAccessDenied && error <= QNetworkReply::UnknownServerError;
        if (error == QNetworkReply::NoError || httpError) {
            if (m_chunked)
                sendPlain("0\r\n\r\n");
        } else {
            m_request.error = "the answer broke off: " + errorText; // no last chunk: the sandbox sees it cut
        }
        end();
    }

    void onTimeout() {
        if (m_phase == Phase::Head || m_phase == Phase::Body)
            refuse(408, "no complete request arrived within " + std::to_string(kRequestTimeoutMs / 1000) + " s");
    }

    // Answered here: a request this end will not send on, or a host that could not be reached.
    void refuse(int status, const std::string& why) {
        if (m_phase == Phase::Streaming || m_phase == Phase::Done)
            return;
        m_request.status = status;
        m_request.error = why;
        const std::string body = "warren: " + why + "\n";
        sendPlain("HTTP/1.1 " + std::to_string(status) + " " + modelProxyReason(status) +
                  "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: close\r\n\r\n" + body);
        end();
    }

    void sendPlain(const std::string& plaintext) {
        if (m_tls->send(plaintext))
            flush();
    }

    void flush() {
        const std::string bytes = m_tls ? m_tls->takeOutput() : std::string();
        if (!bytes.empty())
            m_client->write(bytes.data(), qint64(bytes.size()));
    }

    // Reported once; the sandbox is closed once it has what it is owed, and the exchange with it.
    void end() {
        if (m_phase == Phase::Done)
            return;
        m_phase = Phase::Done;
        m_timer.stop();
        dropReply();
        if (m_tls) {
            m_tls->close();
            flush();
        }
        emit m_proxy.requested(m_request);
        m_client->disconnectFromServer();
        if (m_client->state() == QLocalSocket::UnconnectedState)
            deleteLater();
    }

    void onClientGone() {
        if (m_phase != Phase::Done && m_request.error.empty())
            m_request.error = "the sandbox closed its connection before the answer ended";
        end();
        deleteLater();
    }

    void dropReply() {
        QNetworkReply* reply = m_reply.data();
        m_reply.clear();
        if (!reply)
            return;
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
        reply->deleteLater();
    }

    SecretProxy& m_proxy;
    QLocalSocket* m_client;
    Masks m_masks;
    std::vector<QHostAddress> m_addresses; // the host's, allowed, in the order to try them
    std::size_t m_tried = 0;               // the index of the one being tried
    std::unique_ptr<TlsServerSession> m_tls;
    QPointer<QNetworkReply> m_reply;
    QTimer m_timer;
    Phase m_phase = Phase::Head;
    QByteArray m_early;
    std::string m_buffer;
    IncomingBody m_body;
    ModelRequestHead m_head;
    std::vector<ModelRequestHeader> m_outgoingHeaders; // with the secrets put in
    QByteArray m_outgoingBody;
    SecretRequest m_request;
    bool m_chunked = false;
};

SecretProxy::SecretProxy(std::vector<TaskSecret> secrets, std::unique_ptr<TaskAuthority> authority,
                         QList<QSslCertificate> upstreamAuthorities)
    : m_secrets(std::move(secrets)), m_authority(std::move(authority)),
      m_upstreamTls(QSslConfiguration::defaultConfiguration()), m_network(new QNetworkAccessManager(this)) {
    m_upstreamTls.setCaCertificates(upstreamAuthorities);
}

SecretProxy::~SecretProxy() {
    // The exchanges before the members they use (QObject would delete them after those are gone).
    const QObjectList children = this->children();
    for (QObject* child : children)
        if (child != m_network)
            delete child;
}

bool SecretProxy::intercepts(std::string_view host, std::uint16_t port) const {
    return !secretsBoundTo(m_secrets, host, port).empty();
}

void SecretProxy::take(QLocalSocket* client, QByteArray early, const ProxyRequest& request,
                       std::vector<QHostAddress> addresses) {
    new Exchange(*this, client, std::move(early), request, std::move(addresses));
}

} // namespace warren::control
