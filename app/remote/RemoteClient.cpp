#include "app/remote/RemoteClient.h"

#include "common/JsonFields.h"

#include <QIODevice>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace warren::remote {

namespace {

constexpr qint64 kMaxAnswerBytes = 256ll << 20; // a patch is capped at 64 MiB by the server, an artifact too

} // namespace

Result<QUrl> parseServerUrl(const QString& text) {
    const QUrl url = QUrl::fromUserInput(text.trimmed());
    const QString scheme = url.scheme();
    if (text.trimmed().isEmpty() || !url.isValid() || url.host().isEmpty())
        return makeError(ErrorCode::InvalidArgument,
                         "\"" + text.toStdString() + "\" is not a server URL; expected http(s)://HOST:PORT");
    if (scheme != "http" && scheme != "https")
        return makeError(ErrorCode::InvalidArgument,
                         "a server URL starts with https:// (or http:// on a trusted network), got \"" +
                             text.toStdString() + "\"");
    if (url.hasQuery() || url.hasFragment() || !url.userInfo().isEmpty())
        return makeError(ErrorCode::InvalidArgument, "a server URL has no user, query or fragment: \"" +
                                                         text.toStdString() + "\"");
    QUrl base = url;
    QString path = base.path();
    while (path.endsWith('/'))
        path.chop(1);
    base.setPath(path);
    return base;
}

RemoteClient::RemoteClient(QUrl base, std::string key, QObject* parent)
    : QObject(parent), m_base(std::move(base)), m_key(std::move(key)), m_network(new QNetworkAccessManager(this)) {}

RemoteClient::~RemoteClient() {
    for (QNetworkReply* reply : m_network->findChildren<QNetworkReply*>()) {
        reply->disconnect();
        reply->abort();
    }
}

QNetworkRequest RemoteClient::request(const QString& path) const {
    QUrl url = m_base;
    const qsizetype query = path.indexOf('?');
    url.setPath(m_base.path() + (query < 0 ? path : path.left(query)));
    if (query >= 0)
        url.setQuery(path.mid(query + 1));
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", QByteArray("Bearer ") + QByteArray::fromStdString(m_key));
    request.setRawHeader("User-Agent", QByteArray("warren/") + WARREN_VERSION);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    return request;
}

void RemoteClient::answerWhenFinished(QNetworkReply* reply, QObject* context, Answer done) {
    connect(reply, &QNetworkReply::finished, context, [this, reply, done = std::move(done)] {
        reply->deleteLater();
        HttpOutcome outcome;
        outcome.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->read(kMaxAnswerBytes);
        if (outcome.status == 0) {
            outcome.networkError = reply->error();
            outcome.networkMessage = reply->errorString();
        }
        if (outcome.status >= 200 && outcome.status < 300)
            return done(body, outcome.status);
        outcome.body = body;
        Error failure = describeFailure(outcome, server());
        if (isKeyRejected(outcome))
            emit keyRejected(QString::fromStdString(failure.message));
        done(std::move(failure), outcome.status);
    });
}

void RemoteClient::send(const QByteArray& method, const QString& path, const QByteArray& body, const Headers& headers,
                        QObject* context, Answer done) {
    QNetworkRequest request = this->request(path);
    request.setTransferTimeout(static_cast<int>(kTransferTimeout.count()));
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    for (const auto& [name, value] : headers)
        request.setRawHeader(name, value);
    answerWhenFinished(m_network->sendCustomRequest(request, method, body), context, std::move(done));
}

namespace {

// Depth-capped: whatever answers at the URL decides the bytes, and a deeply nested value would overflow the
// stack of the first copy or dump.
Result<nlohmann::json> jsonAnswer(const QByteArray& answer, const std::string& server, const QString& path) {
    if (answer.isEmpty())
        return nlohmann::json::object();
    auto parsed = json_fields::parseJson(std::string_view(answer.constData(), static_cast<std::size_t>(answer.size())));
    if (!parsed)
        return makeError(ErrorCode::System, "warrend at " + server + " answered " + path.toStdString() +
                                                " with something that is not JSON; is that URL a warrend?");
    return parsed;
}

} // namespace

void RemoteClient::sendJson(const QByteArray& method, const QString& path, const nlohmann::json& body,
                            const Headers& headers, QObject* context, JsonAnswer done) {
    send(method, path, body.is_null() ? QByteArray() : QByteArray::fromStdString(body.dump()), headers, context,
         [this, path, done = std::move(done)](Result<QByteArray> answer, int status) {
             if (!answer)
                 return done(answer.error(), status);
             done(jsonAnswer(*answer, server().toStdString(), path), status);
         });
}

void RemoteClient::upload(const QString& path, std::unique_ptr<QIODevice> body, QObject* context, JsonAnswer done) {
    QNetworkRequest request = this->request(path);
    request.setTransferTimeout(static_cast<int>(kTransferTimeout.count()));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/x-tar"));
    request.setHeader(QNetworkRequest::ContentLengthHeader, body->size());
    QNetworkReply* reply = m_network->post(request, body.get());
    body.release()->setParent(reply); // read as it is sent, gone with the reply
    answerWhenFinished(reply, context, [this, path, done = std::move(done)](Result<QByteArray> answer, int status) {
        if (!answer)
            return done(answer.error(), status);
        auto parsed = jsonAnswer(*answer, server().toStdString(), path);
        if (!parsed || !parsed->is_object())
            return done(makeError(ErrorCode::System, "warrend's answer to the upload is not JSON"), status);
        done(std::move(parsed), status);
    });
}

QNetworkReply* RemoteClient::openStream(const QString& path, const Headers& headers,
                                        QNetworkAccessManager& network) {
    QNetworkRequest request = this->request(path);
    request.setRawHeader("Accept", "text/event-stream");
    for (const auto& [name, value] : headers)
        request.setRawHeader(name, value);
    return network.get(request);
}

} // namespace warren::remote
