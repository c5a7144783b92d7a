#include "server/api/ProviderEndpoints.h"

#include "app/providers/ProviderChoice.h"

#include <QHostAddress>
#include <QUrl>
#include <array>

namespace warren::server {

namespace {

QUrl comparable(const std::string& text) {
    QUrl url(QString::fromStdString(text), QUrl::StrictMode);
    url = url.adjusted(QUrl::StripTrailingSlash | QUrl::NormalizePathSegments);
    if (url.port() == (url.scheme() == QLatin1String("https") ? 443 : 80))
        url.setPort(-1);
    return url;
}

bool sameEndpoint(const control::ProviderConfig& a, const control::ProviderConfig& b) {
    const QUrl left = comparable(a.baseUrl);
    return a.kind == b.kind && a.keyName == b.keyName && left.isValid() && !left.host().isEmpty() &&
           left == comparable(b.baseUrl);
}

} // namespace

bool isOperatorEndpoint(const control::ProviderConfig& provider, const std::string& operatorSpec) {
    if (provider.kind == control::ProviderConfig::Kind::Scripted)
        return false;
    constexpr std::array kHosted{"openai", "anthropic", "openrouter"};
    for (const char* name : kHosted) {
        auto hosted = control::parseProviderSpec(name, "any");
        if (hosted && sameEndpoint(provider, *hosted))
            return true;
    }
    if (operatorSpec.empty() || control::ProviderChoice::parse(operatorSpec).isScripted())
        return false;
    auto configured = control::parseProviderSpec(operatorSpec, "any");
    return configured && sameEndpoint(provider, *configured);
}

Status checkProviderEndpoint(const control::ProviderConfig& provider, const std::string& operatorSpec,
                             const control::InsideAccess& access) {
    if (provider.kind == control::ProviderConfig::Kind::Scripted ||
        isOperatorEndpoint(provider, operatorSpec))
        return Ok{};
    const QUrl url(QString::fromStdString(provider.baseUrl));
    const std::string host = url.host().toStdString();
    const auto port = std::uint16_t(url.port(url.scheme() == QLatin1String("https") ? 443 : 80));
    const QHostAddress literal(url.host());
    bool reachable = true;
    if (!literal.isNull())
        reachable = control::insideReachable(access, host, literal, port);
    else if (control::isLocalHostName(host))
        reachable =
            control::insideDestinationAllowed(access.allowed, host, QHostAddress::LocalHost, port) ||
            control::insideDestinationAllowed(access.allowed, host, QHostAddress::LocalHostIPv6, port);
    if (reachable)
        return Ok{};
    return makeError(
        ErrorCode::InvalidArgument,
        "provider: " + provider.baseUrl +
            " is inside the server's own host or its networks, which a provider a user names is "
            "never connected to on a server; use a public endpoint, or ask the operator to allow it "
            "with warrend serve --allow-internal");
}

} // namespace warren::server
