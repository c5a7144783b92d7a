#include "server/webhooks/WebhookSender.h"

#include "server/webhooks/WebhookPolicy.h"

#include <QHostInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

namespace warren::server {

void WebhookSender::send(QNetworkAccessManager& network, const HttpUrl& url,
                         const control::InsideAccess& access, QByteArray body,
                         QList<QPair<QByteArray, QByteArray>> headers, QObject* context, Done done) {
    auto* sender = new WebhookSender(network, url, access, std::move(body), std::move(headers), context,
                                     std::move(done));
    sender->start();
}

WebhookSender::WebhookSender(QNetworkAccessManager& network, HttpUrl url, control::InsideAccess access,
                             QByteArray body, QList<QPair<QByteArray, QByteArray>> headers, QObject* context,
                             Done done)
    : QObject(context), m_network(network), m_url(std::move(url)), m_access(std::move(access)),
      m_body(std::move(body)), m_headers(std::move(headers)), m_context(context), m_done(std::move(done)) {}

void WebhookSender::start() {
    m_deadline.setSingleShot(true);
    m_deadline.setInterval(kDeliveryAttemptTimeout);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        finish(makeError(ErrorCode::Unavailable,
                         "no answer within " + std::to_string(kDeliveryAttemptTimeout.count()) + " s"));
    });
    m_deadline.start();
    const QHostAddress literal(QString::fromStdString(m_url.host));
    if (!literal.isNull())
        return connectTo({literal});
    QHostInfo::lookupHost(QString::fromStdString(m_url.host), this, [this](const QHostInfo& info) {
        if (info.error() != QHostInfo::NoError || info.addresses().isEmpty())
            return finish(makeError(ErrorCode::Unavailable, "cannot resolve " + m_url.host + ": " +
                                                                info.errorString().toStdString()));
        connectTo(info.addresses());
    });
}

void WebhookSender::connectTo(const QList<QHostAddress>& addresses) {
    for (const QHostAddress& address : addresses)
        if (webhookAddressAllowed(m_url, address, m_access))
            return post(address);
    finish(
        makeError(ErrorCode::InvalidArgument,
                  "refused: " + m_url.host + " is at " + addresses.first().toString().toStdString() +
                      ", inside the server's host or its networks, which a webhook never reaches unless the "
                      "operator allows it (warrend serve --allow-internal)"));
}

void WebhookSender::post(const QHostAddress& address) {
    QUrl target;
    target.setScheme(m_url.tls ? "https" : "http");
    target.setHost(address.toString());
    target.setPort(m_url.port);
    const QString path = QString::fromStdString(m_url.target);
    const qsizetype query = path.indexOf('?');
    target.setPath(query < 0 ? path : path.left(query), QUrl::TolerantMode);
    if (query >= 0)
        target.setQuery(path.mid(query + 1), QUrl::TolerantMode);
    QNetworkRequest request(target);
    // A redirect is a second destination nobody checked; cookies and caches are the server's own, not the
    // receiver's to set or read.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    request.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    request.setRawHeader("Host", QByteArray::fromStdString(m_url.authority()));
    if (QHostAddress(QString::fromStdString(m_url.host)).isNull())
        request.setPeerVerifyName(QString::fromStdString(m_url.host)); // the certificate is the name's
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    request.setHeader(QNetworkRequest::UserAgentHeader, "warrend-webhooks");
    for (const auto& [name, value] : m_headers)
        request.setRawHeader(name, value);
    m_reply = m_network.post(request, m_body);
    m_reply->setReadBufferSize(4096); // the answer's body is never read: what it holds waits in this much
    connect(m_reply, &QNetworkReply::metaDataChanged, this, &WebhookSender::onAnswer);
    connect(m_reply, &QNetworkReply::finished, this, &WebhookSender::onAnswer);
}

// The status line is all a delivery needs: the answer's body is not read.
void WebhookSender::onAnswer() {
    if (!m_reply || m_finished)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 0) {
        if (webhookDelivered(status))
            return finish(Ok{});
        return finish(makeError(ErrorCode::Unavailable, "answered " + std::to_string(status)));
    }
    if (m_reply->isFinished())
        finish(makeError(ErrorCode::Unavailable, m_reply->errorString().toStdString()));
}

void WebhookSender::finish(Status result) {
    if (m_finished)
        return;
    m_finished = true;
    m_deadline.stop();
    if (QNetworkReply* reply = m_reply.data()) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
    if (m_context)
        m_done(std::move(result));
    deleteLater();
}

} // namespace warren::server
