#include "app/providers/HttpChatCall.h"

#include <QDateTime>
#include <QHostInfo>
#include <QNetworkAccessManager>
#include <QNetworkRequest>

namespace warren::control {

namespace {

// A non-2xx body is read only for its error message; a server that streams megabytes there is cut off.
constexpr qsizetype kMaxErrorBody = 64 * 1024;

// Each adaptation changes the dialect (RequestDialect.h refuses one that would not), so a few cover every
// parameter it knows; the bound only stops a server that keeps finding new faults.
constexpr int kMaxAdaptations = 4;

// Failures where no server answered, which a second try may get past (a server restarting, a dropped
// keep-alive connection). A wrong host name or a TLS failure will not change and is reported at once.
bool isRetryableNetworkError(QNetworkReply::NetworkError error) {
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::UnknownNetworkError:
        return true;
    default:
        return false;
    }
}

std::string seconds(std::chrono::milliseconds duration) {
    const auto count = duration.count();
    return count % 1000 == 0 ? std::to_string(count / 1000) + " s" : std::to_string(count) + " ms";
}

} // namespace

HttpChatCall::HttpChatCall(QNetworkAccessManager* network, HttpChatRequest request, QObject* parent)
    : ChatCall(parent), m_network(network), m_request(std::move(request)) {
    m_idleTimer.setSingleShot(true);
    m_idleTimer.setInterval(m_request.idleTimeout);
    connect(&m_idleTimer, &QTimer::timeout, this, &HttpChatCall::onIdleTimeout);
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &HttpChatCall::send);
    send();
}

HttpChatCall::~HttpChatCall() {
    dropReply();
}

void HttpChatCall::abort() {
    if (!m_done)
        fail("aborted");
}

void HttpChatCall::send() {
    m_decoder = m_request.makeDecoder();
    m_parser = SseParser();
    m_status = 0;
    m_errorBody.clear();
    m_bodyBytes = 0;
    m_timedOut = false;

    if (!m_request.access)
        return post(m_request.url, {});
    // Resolved here, checked, and the checked address connected to: Qt's own lookup would be a second
    // answer the check never saw.
    // Both ways answer from the event loop: a refusal is a finished() the caller, still in chat(), would miss.
    const QString host = m_request.url.host();
    const QHostAddress literal(host);
    m_idleTimer.start();
    if (!literal.isNull()) {
        QMetaObject::invokeMethod(
            this,
            [this, literal] {
                if (!m_done && !m_reply)
                    postChecked({literal});
            },
            Qt::QueuedConnection);
        return;
    }
    QHostInfo::lookupHost(host, this, [this](const QHostInfo& info) {
        if (m_done || m_reply)
            return; // failed (timed out) or aborted meanwhile
        if (info.error() != QHostInfo::NoError)
            return retryOrFail("cannot resolve " + m_request.url.host().toStdString() + ": " +
                                   info.errorString().toStdString(),
                               "could not reach the model server at " + m_request.server.url + ": cannot resolve " +
                                   m_request.url.host().toStdString() + ": " + info.errorString().toStdString(),
                               m_request.retry.delay(m_attempt + 1, {}, {}, QDateTime::currentDateTimeUtc()));
        postChecked(info.addresses());
    });
}

// The first address the access allows; none: the call fails, saying why, and nothing is sent.
void HttpChatCall::postChecked(const QList<QHostAddress>& addresses) {
    const QString host = m_request.url.host();
    const int port = m_request.url.port(m_request.url.scheme() == QLatin1String("https") ? 443 : 80);
    std::string inside;
    for (const QHostAddress& address : addresses) {
        if (insideReachable(*m_request.access, host.toStdString(), address, std::uint16_t(port))) {
            QUrl url = m_request.url;
            url.setHost(address.toString());
            return post(url, host);
        }
        if (inside.empty())
            inside = address.toString().toStdString();
    }
    fail("the model server at " + m_request.server.url + " is " +
         (inside.empty() ? std::string("at no address")
                         : "inside the server's own host or its networks (" + inside + ")") +
         ", which a provider a user names is never connected to on a server; use a public endpoint, or ask "
         "the operator to allow it with warrend serve --allow-internal");
}

// url: where to connect; hostName: the name it was reached by (Host, TLS peer), empty when url has it.
void HttpChatCall::post(const QUrl& url, const QString& hostName) {
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "text/event-stream");
    if (!hostName.isEmpty() && QHostAddress(hostName).isNull()) {
        const int port = m_request.url.port();
        request.setRawHeader("Host", (hostName + (port < 0 ? QString() : ":" + QString::number(port))).toUtf8());
        request.setPeerVerifyName(hostName); // the certificate's name, and the name sent as TLS SNI
    }
    if (m_request.access) // a redirect would be a second destination nobody checked
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    for (const auto& [name, value] : m_request.headers)
        request.setRawHeader(name, value);
    m_reply = m_network->post(request, m_request.body);
    connect(m_reply, &QNetworkReply::readyRead, this, &HttpChatCall::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &HttpChatCall::onReplyFinished);
    m_idleTimer.start();
}

void HttpChatCall::onReadyRead() {
    if (m_done || !m_reply)
        return;
    m_idleTimer.start(); // any byte proves the server is alive
    if (m_status == 0)
        m_status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray bytes = m_reply->readAll();
    if (m_status >= 200 && m_status < 300)
        consume(bytes);
    else
        m_errorBody.append(bytes.left(kMaxErrorBody - m_errorBody.size()));
}

void HttpChatCall::consume(const QByteArray& bytes) {
    m_bodyBytes += bytes.size();
    for (const SseEvent& event : m_parser.feed(std::string_view(bytes.constData(), std::size_t(bytes.size())))) {
        auto text = m_decoder->feed(event);
        if (!text) {
            fail(text.error().message + " (from " + m_request.server.url + ")");
            return;
        }
        if (!text->empty()) {
            m_sentText = true;
            emit delta(QString::fromStdString(*text));
            if (m_done)
                return; // the receiver aborted the call
        }
    }
}

void HttpChatCall::onReplyFinished() {
    if (m_done || !m_reply)
        return;
    m_idleTimer.stop();
    if (m_status == 0)
        m_status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray rest = m_reply->readAll();
    const QNetworkReply::NetworkError error = m_reply->error();
    const QString errorText = m_reply->errorString();

    if (m_status >= 200 && m_status < 300) {
        consume(rest);
        if (!m_done)
            finishStream(error, errorText);
        return;
    }
    const std::string& url = m_request.server.url;
    if (m_status != 0) {
        m_errorBody.append(rest.left(kMaxErrorBody - m_errorBody.size()));
        const QByteArray reason = m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
        if (!RetryPolicy::isRetryableStatus(m_status)) {
            if ((m_status == 400 || m_status == 422) && m_request.adapt && m_adaptations < kMaxAdaptations) {
                if (auto next = m_request.adapt(m_status, m_errorBody)) {
                    ++m_adaptations;
                    m_request.body = std::move(next->body);
                    const std::string why = "the model server at " + url + " refused the request (" +
                                            std::to_string(m_status) + ": " +
                                            excerpt(serverErrorText(m_errorBody), 200) + "); sending " +
                                            next->what + " for the rest of this task";
                    dropReply();
                    emit adapted(QString::fromStdString(withoutKey(why, m_request.server.apiKey)));
                    if (!m_done)
                        m_retryTimer.start(0);
                    return;
                }
            }
            fail(describeHttpStatus(m_request.server, m_status, reason, m_errorBody, 1));
            return;
        }
        const std::string failure = describeHttpStatus(m_request.server, m_status, reason, m_errorBody, m_attempt + 1);
        std::string why = std::to_string(m_status) + " " + reason.toStdString();
        if (const std::string text = serverErrorText(m_errorBody); !text.empty())
            why += ": " + excerpt(text, 200);
        const auto delay = m_request.retry.delay(m_attempt + 1, m_reply->rawHeader("Retry-After"),
                                                 m_reply->rawHeader("retry-after-ms"), QDateTime::currentDateTimeUtc());
        retryOrFail(why, failure, delay);
        return;
    }
    const std::string why = "could not reach the model server at " + url + ": " + errorText.toStdString();
    if (!isRetryableNetworkError(error)) {
        fail(why);
        return;
    }
    retryOrFail(why, why + " (tried " + std::to_string(m_attempt + 1) + " times); is the server running?",
                m_request.retry.delay(m_attempt + 1, {}, {}, QDateTime::currentDateTimeUtc()));
}

void HttpChatCall::finishStream(QNetworkReply::NetworkError error, const QString& errorText) {
    for (const SseEvent& event : m_parser.finish()) {
        auto text = m_decoder->feed(event);
        if (!text) {
            fail(text.error().message + " (from " + m_request.server.url + ")");
            return;
        }
        if (!text->empty()) {
            m_sentText = true;
            emit delta(QString::fromStdString(*text));
            if (m_done)
                return;
        }
    }
    if (m_decoder->complete()) {
        // A connection closed after the end marker lost nothing.
        auto result = m_decoder->result();
        dropReply();
        m_idleTimer.stop();
        m_done = true;
        if (!result)
            finish(makeError(result.error().code, withoutKey(result.error().message, m_request.server.apiKey)));
        else
            finish(std::move(result));
        return;
    }
    // The stream stopped before its end marker. Qt does not always report a connection closed between two
    // chunks as an error, so both cases are handled alike: before any text reached the caller a retry
    // repeats nothing and is made; after, it would repeat text, so the call fails and the caller decides.
    const std::string& url = m_request.server.url;
    const bool dropped = error != QNetworkReply::NoError;
    const std::string what =
        dropped ? "the connection to the model server at " + url + " dropped mid-reply after " +
                      std::to_string(m_bodyBytes) + " bytes (" + errorText.toStdString() + ")"
                : m_decoder->result().error().message + " (from " + url + (m_sentText ? ", mid-reply" : "") +
                      " after " + std::to_string(m_bodyBytes) + " bytes)";
    if (!m_sentText && (!dropped || isRetryableNetworkError(error)))
        retryOrFail(what, what + "; gave up after " + std::to_string(m_attempt) + " retries",
                    m_request.retry.delay(m_attempt + 1, {}, {}, QDateTime::currentDateTimeUtc()));
    else
        fail(m_sentText ? what + "; the partial reply was discarded" : what);
}

void HttpChatCall::retryOrFail(const std::string& why, const std::string& failure, std::chrono::milliseconds delay) {
    if (m_attempt >= m_request.retry.maxRetries) {
        fail(failure);
        return;
    }
    ++m_attempt;
    dropReply();
    emit retrying(m_attempt, delay.count(), QString::fromStdString(withoutKey(why, m_request.server.apiKey)));
    if (!m_done)
        m_retryTimer.start(delay);
}

void HttpChatCall::onIdleTimeout() {
    if (m_done)
        return;
    std::string message = "the model server at " + m_request.server.url + " sent nothing for " +
                          seconds(m_request.idleTimeout);
    if (m_bodyBytes > 0)
        message += " mid-reply, after " + std::to_string(m_bodyBytes) + " bytes";
    else
        message += "; it may be overloaded or still loading the model";
    fail(message);
}

void HttpChatCall::fail(const std::string& message) {
    dropReply();
    m_idleTimer.stop();
    m_retryTimer.stop();
    m_done = true;
    finish(makeError(ErrorCode::System, withoutKey(message, m_request.server.apiKey)));
}

void HttpChatCall::dropReply() {
    QNetworkReply* reply = m_reply.data();
    m_reply.clear();
    if (reply == nullptr)
        return;
    disconnect(reply, nullptr, this, nullptr);
    reply->abort();
    reply->deleteLater();
}

} // namespace warren::control
