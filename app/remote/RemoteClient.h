#pragma once
// The HTTP edge to one warrend: its URL and the user's API key (Bearer), over QNetworkAccessManager.
//
// ControlPlane's calls answer at once, so call() waits for its reply in a nested event loop that leaves
// the user's input queued (ExcludeUserInputEvents): the window repaints and other replies and streams go
// on, but no click can start a second call inside the first. A reply that stops moving for
// kTransferTimeout is abandoned with a message. While a call waits, `busy()` is true; the plane holds back
// what its streams deliver until `idle` so no face sees an event in the middle of one of its own calls.

#include "app/remote/RemoteFailure.h"
#include "common/Result.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>
#include <chrono>
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

    // The answer's body when its status is 2xx; otherwise describeFailure's error (401 also emits
    // keyRejected). status, when given, gets the HTTP status (0: no answer came).
    Result<QByteArray> call(const QByteArray& method, const QString& path, const QByteArray& body = {},
                            const Headers& headers = {}, int* status = nullptr);
    Result<nlohmann::json> callJson(const QByteArray& method, const QString& path,
                                    const nlohmann::json& body = nullptr, const Headers& headers = {},
                                    int* status = nullptr);
    // POSTs the device's bytes (a file, read as it is sent) as application/x-tar.
    Result<nlohmann::json> upload(const QString& path, QIODevice* body);
    // A GET whose body the caller reads as it arrives (the event stream); no transfer timeout: the server
    // sends a comment every 15 s, and the caller watches for silence itself.
    // On the stream's own network: a stream holds its HTTP/1 connection as long as its task runs, and a
    // pool keeps six per server, so streams in the calls' pool would hold every call back once six tasks ran.
    QNetworkReply* openStream(const QString& path, const Headers& headers, QNetworkAccessManager& network);
    // A GET answered later (the caller reads the reply when it finishes); no nested wait.
    QNetworkReply* get(const QString& path);

    bool busy() const { return m_depth > 0; }
    const QUrl& base() const { return m_base; }
    QString server() const { return m_base.toString(); }
    void setKey(std::string key) { m_key = std::move(key); }

signals:
    void keyRejected(const QString& message);
    void idle(); // the last waiting call returned

private:
    QNetworkRequest request(const QString& path) const;
    Result<QByteArray> wait(QNetworkReply* reply, int* status = nullptr);

    QUrl m_base;
    std::string m_key;
    QNetworkAccessManager* m_network;
    int m_depth = 0;
};

} // namespace warren::remote
