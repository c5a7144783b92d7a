#pragma once
// The HTTP edge to one warrend: its URL and the user's API key (Bearer), over QNetworkAccessManager.
//
// Every request answers later, through a continuation run when its reply has finished (never inside the
// call, never in a nested event loop), in the context object's thread and only while that object lives. A
// reply that stops moving for kTransferTimeout is abandoned with a message.

#include "app/remote/RemoteFailure.h"
#include "common/Result.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

class QIODevice;
class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace warren::remote {

struct RemoteServer {
    QString url; // http(s)://HOST:PORT, as the user wrote it
    std::string key;
};

// A URL a user typed, made the base every path is added to; an error says what is wrong with it.
Result<QUrl> parseServerUrl(const QString& text);

using Headers = QList<std::pair<QByteArray, QByteArray>>;

class RemoteClient : public QObject {
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds kTransferTimeout{30'000};

    RemoteClient(QUrl base, std::string key, QObject* parent = nullptr);
    // Aborts what is still under way with its receivers disconnected first: no handler runs against a client
    // (or the plane holding it) that is being destroyed.
    ~RemoteClient() override;

    // What a request's continuation gets: the body when its status is 2xx, otherwise describeFailure's error
    // (401 also emits keyRejected); and the HTTP status (0: no answer came).
    using Answer = std::function<void(Result<QByteArray> body, int status)>;
    using JsonAnswer = std::function<void(Result<nlohmann::json> body, int status)>;

    void send(const QByteArray& method, const QString& path, const QByteArray& body, const Headers& headers,
              QObject* context, Answer done);
    // A JSON body (null: none) and a JSON answer (an empty one reads as {}).
    void sendJson(const QByteArray& method, const QString& path, const nlohmann::json& body, const Headers& headers,
                  QObject* context, JsonAnswer done);
    // POSTs the device's bytes (a file, read as it is sent) as application/x-tar; the client owns body from
    // now on and closes it when the answer came.
    void upload(const QString& path, std::unique_ptr<QIODevice> body, QObject* context, JsonAnswer done);
    // A GET whose body the caller reads as it arrives (the event stream); no transfer timeout: the server
    // sends a comment every 15 s, and the caller watches for silence itself.
    // On the stream's own network: a stream holds its HTTP/1 connection as long as its task runs, and a
    // pool keeps six per server, so streams in the calls' pool would hold every call back once six tasks ran.
    QNetworkReply* openStream(const QString& path, const Headers& headers, QNetworkAccessManager& network);

    const QUrl& base() const { return m_base; }
    QString server() const { return m_base.toString(); }
    void setKey(std::string key) { m_key = std::move(key); }

signals:
    void keyRejected(const QString& message);

private:
    QNetworkRequest request(const QString& path) const;
    // Runs done with reply's outcome once it has finished.
    void answerWhenFinished(QNetworkReply* reply, QObject* context, Answer done);

    QUrl m_base;
    std::string m_key;
    QNetworkAccessManager* m_network;
};

} // namespace warren::remote
