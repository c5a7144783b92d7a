#pragma once
// One streamed model call over HTTP, shared by OpenAiProvider and AnthropicProvider: posts the request,
// reads the body as it arrives (readyRead), feeds the API's decoder and relays the text; retries 429/5xx
// and connections that fail before the reply started, after a delay on a timer; fails a call whose
// server goes silent for the request timeout; sends an adapted request when the server refuses a parameter
// (RequestDialect.h).

#include "app/egress/InsideDestinations.h"
#include "app/providers/ChatStreamDecoder.h"
#include "app/providers/HttpFailure.h"
#include "app/providers/Provider.h"
#include "app/providers/RetryPolicy.h"
#include "common/http/SseParser.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QNetworkReply>
#include <QPair>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace warren::control {

struct HttpChatRequest {
    QUrl url;
    QList<QPair<QByteArray, QByteArray>> headers; // may hold the key: never logged or shown
    QByteArray body;
    ServerContext server;
    RetryPolicy retry;
    std::chrono::milliseconds idleTimeout{120000};
    // Set (warrend, an endpoint a user named): each attempt resolves the URL's host itself, connects only to
    // an address insideReachable allows (sending the host's name as Host and as the TLS peer name), so
    // neither a name that resolves inside nor one that changes its answer between check and use (DNS
    // rebinding) reaches the server's host or networks. nullopt: Qt resolves and connects as it likes.
    std::optional<InsideAccess> access;
    std::function<std::unique_ptr<ChatStreamDecoder>()> makeDecoder; // a fresh one per attempt
    // A 400 or 422 that may name a parameter the server refuses: the body to send instead and what
    // changed, or nullopt (the call fails as before). Unset: no adapting.
    struct Adaptation {
        QByteArray body;
        std::string what;
    };
    std::function<std::optional<Adaptation>(int status, const QByteArray& errorBody)> adapt;
};

class HttpChatCall : public ChatCall {
    Q_OBJECT
public:
    // Sends the request at once; the signals follow from the event loop.
    HttpChatCall(QNetworkAccessManager* network, HttpChatRequest request, QObject* parent);
    ~HttpChatCall() override;
    void abort() override;

private:
    void send();
    void postChecked(const QList<QHostAddress>& addresses);
    void post(const QUrl& url, const QString& hostName);
    void onReadyRead();
    void onReplyFinished();
    void onIdleTimeout();
    void consume(const QByteArray& bytes);
    void finishStream(QNetworkReply::NetworkError error, const QString& errorText);
    void retryOrFail(const std::string& why, const std::string& failure, std::chrono::milliseconds delay);
    void fail(const std::string& message);
    void dropReply();

    QNetworkAccessManager* m_network;
    HttpChatRequest m_request;
    QPointer<QNetworkReply> m_reply;
    QTimer m_idleTimer;
    QTimer m_retryTimer;
    std::unique_ptr<ChatStreamDecoder> m_decoder;
    SseParser m_parser;
    int m_attempt = 0;       // retries done so far
    int m_adaptations = 0;   // requests adapted to a refusal so far
    int m_status = 0;        // this attempt's HTTP status, 0 before the headers
    QByteArray m_errorBody;  // the body of a non-2xx answer, capped
    qint64 m_bodyBytes = 0;  // bytes of a 2xx body received in this attempt
    bool m_sentText = false; // a delta went out: a retry would repeat it, so none is made
    bool m_timedOut = false;
    bool m_done = false;
};

} // namespace warren::control
