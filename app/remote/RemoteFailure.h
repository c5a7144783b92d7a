#pragma once
// What a failed request to warrend means for the person at the desktop, as an Error they can act on. Pure,
// so every status and network failure is a row of a test: the faces show these messages as they are.
//
// The codes say what the caller may do: Unavailable (no answer, the server is restarting, the database is
// down, a quota is full: trying again later may work), NotFound (the task or upload is not the caller's or
// does not exist: the server answers both alike), InvalidArgument (the request was refused for its content;
// the server's message says why), System (anything else). A refused key is its own case (keyRejected), since
// only a new key helps.

#include "common/Result.h"

#include <QByteArray>
#include <QString>

namespace warren::remote {

struct HttpOutcome {
    int status = 0;         // 0: no HTTP answer
    int networkError = 0;   // QNetworkReply::NetworkError, when status is 0
    QString networkMessage; // Qt's words for it
    QByteArray body;        // the answer's body (warrend's {"error": {"code", "message"}})
};

// A 2xx is no failure; call this for anything else. server is the URL the user configured.
Error describeFailure(const HttpOutcome& outcome, const QString& server);

// 401: the key is missing, mistyped, revoked or expired; the server does not say which.
bool isKeyRejected(const HttpOutcome& outcome);

// warrend's {"error": {"code", "message"}} message, empty when the body is not one.
std::string serverMessage(const QByteArray& body);

} // namespace warren::remote
