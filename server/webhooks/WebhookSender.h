#pragma once
// One attempt of one delivery: the hook's name resolved here (the address connected to is the address
// checked: no second lookup, no DNS rebinding), the body POSTed with the given headers and nothing of the
// operator's (no key, no cookie, no proxy's), no redirect followed, only the answer's status read, all within
// kDeliveryAttemptTimeout. https is verified against the hook's host name (Qt's TLS, the system's CAs).
// Asynchronous, on the event loop: it never waits, and one slow receiver holds nothing but its own attempt.

#include "app/egress/InsideDestinations.h"
#include "common/Result.h"
#include "common/http/HttpUrl.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTimer>
#include <functional>

class QNetworkAccessManager;
class QNetworkReply;

namespace warren::server {

class WebhookSender : public QObject {
    Q_OBJECT
public:
    // Ok: the receiver answered 2xx. InvalidArgument: refused before connecting (the name resolved only to
    // addresses inside, and the operator allows none of them): not worth a retry. Unavailable: anything else
    // (no answer, another status, a TLS failure, the deadline), worth one.
    using Done = std::function<void(Status result)>;

    // Starts the attempt; done is called once, on this thread, unless context is destroyed first.
    static void send(QNetworkAccessManager& network, const HttpUrl& url, const control::InsideAccess& access,
                     QByteArray body, QList<QPair<QByteArray, QByteArray>> headers, QObject* context,
                     Done done);

private:
    WebhookSender(QNetworkAccessManager& network, HttpUrl url, control::InsideAccess access, QByteArray body,
                  QList<QPair<QByteArray, QByteArray>> headers, QObject* context, Done done);
    void start();
    void connectTo(const QList<QHostAddress>& addresses);
    void post(const QHostAddress& address);
    void onAnswer();
    void finish(Status result);

    QNetworkAccessManager& m_network;
    HttpUrl m_url;
    control::InsideAccess m_access;
    QByteArray m_body;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QPointer<QObject> m_context;
    Done m_done;
    QTimer m_deadline;
    QPointer<QNetworkReply> m_reply;
    bool m_finished = false;
};

} // namespace warren::server
