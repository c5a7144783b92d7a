#include "app/remote/RemoteFailure.h"

#include "common/JsonFields.h"

#include <QNetworkReply>
#include <nlohmann/json.hpp>

namespace warren::remote {

std::string serverMessage(const QByteArray& body) {
    // Any server's error body, of any shape: find, never a const operator[] (which asserts on a missing key).
    const auto parsed = json_fields::parseJson(std::string_view(body.constData(), static_cast<std::size_t>(body.size())));
    if (!parsed || !parsed->is_object())
        return {};
    const auto error = parsed->find("error");
    if (error == parsed->end() || !error->is_object())
        return {};
    const auto message = error->find("message");
    return message != error->end() && message->is_string() ? message->get<std::string>() : std::string();
}

bool isKeyRejected(const HttpOutcome& outcome) { return outcome.status == 401; }

Error describeFailure(const HttpOutcome& outcome, const QString& server) {
    const std::string at = "warrend at " + server.toStdString();
    if (outcome.status == 0) {
        switch (outcome.networkError) {
        case QNetworkReply::ConnectionRefusedError:
            return makeError(ErrorCode::Unavailable, "cannot reach " + at +
                                                         ": nothing listens there (connection refused); is the "
                                                         "server running, and is the URL in Settings right?");
        case QNetworkReply::HostNotFoundError:
            return makeError(ErrorCode::Unavailable,
                             "cannot reach " + at + ": its host name is not known here; check the URL in Settings");
        case QNetworkReply::RemoteHostClosedError:
            return makeError(ErrorCode::Unavailable,
                             "the connection to " + at + " was closed before it answered; it may be restarting");
        case QNetworkReply::TimeoutError:
        case QNetworkReply::OperationCanceledError: // the transfer timeout aborts this way
            return makeError(ErrorCode::Unavailable, at + " did not answer in time; check the network and the server");
        case QNetworkReply::SslHandshakeFailedError:
            return makeError(ErrorCode::System, "the TLS handshake with " + at + " failed (" +
                                                    outcome.networkMessage.toStdString() +
                                                    "); its certificate is not one this machine trusts");
        default:
            return makeError(ErrorCode::Unavailable,
                             "cannot reach " + at + ": " + outcome.networkMessage.toStdString());
        }
    }
    std::string message = serverMessage(outcome.body);
    if (message.empty())
        message = "HTTP " + std::to_string(outcome.status);
    switch (outcome.status) {
    case 401:
        return makeError(ErrorCode::InvalidArgument,
                         at + " refused the API key (mistyped, revoked or expired): enter a new one in "
                              "Settings, or `warren secrets set remote`");
    case 404:
        return makeError(ErrorCode::NotFound, message);
    case 429:
        return makeError(ErrorCode::Unavailable, message);
    case 502:
    case 503:
    case 504:
        return makeError(ErrorCode::Unavailable, at + " cannot serve this now (" + message + "); try again shortly");
    default:
        break;
    }
    if (outcome.status >= 400 && outcome.status < 500)
        return makeError(ErrorCode::InvalidArgument, message);
    return makeError(ErrorCode::System, at + " failed: " + message + "; its log says more");
}

} // namespace warren::remote
