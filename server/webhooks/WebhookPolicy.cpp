#include "server/webhooks/WebhookPolicy.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <algorithm>

namespace warren::server {

namespace {

Error refuse(const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "url: " + why);
}

} // namespace

Result<HttpUrl> checkWebhookUrl(std::string_view text, const control::InsideAccess& access) {
    if (text.size() > kMaxWebhookUrlBytes)
        return refuse("longer than " + std::to_string(kMaxWebhookUrlBytes) + " bytes");
    if (!text.starts_with("http://") && !text.starts_with("https://"))
        return refuse("only http:// and https:// URLs are delivered to");
    auto url = parseHttpUrl(text);
    if (!url)
        return refuse(url.error().message);
    const std::string how =
        "; a webhook goes to a public address, never to the server's own host or its "
        "networks, unless the operator allows the destination (warrend serve --allow-internal)";
    const QHostAddress literal(QString::fromStdString(url->host));
    if (!literal.isNull()) {
        if (!webhookAddressAllowed(*url, literal, access))
            return refuse(url->host + " is an address inside the server's host or its networks" + how);
        return url;
    }
    // The machine answers for these names itself, whatever DNS says: loopback.
    if (control::isLocalHostName(url->host) &&
        !control::insideReachable(access, url->host, QHostAddress(QHostAddress::LocalHost), url->port))
        return refuse(url->host + " is this server itself" + how);
    return url;
}

bool webhookAddressAllowed(const HttpUrl& url, const QHostAddress& address,
                           const control::InsideAccess& access) {
    return control::insideReachable(access, url.host, address, url.port);
}

std::string webhookSignature(std::string_view secret, std::string_view body) {
    const QByteArray mac = QMessageAuthenticationCode::hash(
        QByteArray(body.data(), qsizetype(body.size())), QByteArray(secret.data(), qsizetype(secret.size())),
        QCryptographicHash::Sha256);
    return "sha256=" + mac.toHex().toStdString();
}

std::optional<std::chrono::milliseconds> webhookRetryDelay(int attemptsMade) {
    if (attemptsMade < 1 || attemptsMade >= kMaxDeliveryAttempts)
        return std::nullopt;
    const std::chrono::milliseconds delay = std::chrono::seconds(1) * (1LL << std::min(attemptsMade - 1, 20));
    return std::min<std::chrono::milliseconds>(delay, std::chrono::minutes(5));
}

} // namespace warren::server
