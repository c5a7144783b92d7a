#include "common/http/HttpUrl.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warren {

namespace {

Error invalid(std::string_view text, const std::string& why) {
    const std::string shown(text.substr(0, 200));
    return makeError(ErrorCode::InvalidArgument, "\"" + shown + "\" is not a usable http(s) URL: " + why);
}

bool isHostChar(unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.';
}

bool isTargetChar(unsigned char c) {
    // What RFC 3986 allows in a path and a query, '%' for escapes; never a space, control or non-ASCII byte.
    return std::isalnum(c) || std::string_view("-._~!$&'()*+,;=:@/?%").find(char(c)) != std::string_view::npos;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::uint16_t defaultPort(bool tls) {
    return tls ? 443 : 80;
}

Result<std::string> checkedTarget(std::string_view full, std::string_view target) {
    if (target.find('#') != std::string_view::npos)
        return invalid(full, "a fragment (#...) is not sent to a server");
    if (!std::all_of(target.begin(), target.end(), [](unsigned char c) { return isTargetChar(c); }))
        return invalid(full, "its path holds a character a request cannot carry (escape it with %XX)");
    return target.empty() ? std::string("/") : std::string(target);
}

} // namespace

std::string HttpUrl::hostPort() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string HttpUrl::authority() const {
    if (port != defaultPort(tls))
        return hostPort();
    return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

std::string HttpUrl::origin() const {
    return std::string(tls ? "https://" : "http://") + authority();
}

std::string HttpUrl::text() const {
    return origin() + target;
}

Result<HttpUrl> parseHttpUrl(std::string_view text) {
    if (text.size() > kMaxUrlBytes)
        return invalid(text, "longer than " + std::to_string(kMaxUrlBytes) + " bytes");
    HttpUrl url;
    const std::size_t schemeEnd = text.find("://");
    if (schemeEnd == std::string_view::npos)
        return invalid(text, "it does not start with http:// or https://");
    const std::string scheme = lower(text.substr(0, schemeEnd));
    if (scheme != "http" && scheme != "https")
        return invalid(text, "only http:// and https:// are supported");
    url.tls = scheme == "https";
    const std::string_view rest = text.substr(schemeEnd + 3);
    const std::size_t authorityEnd = std::min(rest.find_first_of("/?#"), rest.size());
    const std::string_view authority = rest.substr(0, authorityEnd);
    if (authority.find('@') != std::string_view::npos)
        return invalid(text, "a user name or password in the URL (user@host) is not allowed; use headers");
    std::string_view host = authority;
    std::string_view port;
    if (authority.starts_with('[')) {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos)
            return invalid(text, "an IPv6 address without its closing ]");
        host = authority.substr(1, close - 1);
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && !after.starts_with(':'))
            return invalid(text, "something follows the IPv6 address");
        port = after.empty() ? std::string_view() : after.substr(1);
        if (host.empty() || !std::all_of(host.begin(), host.end(), [](unsigned char c) {
                return std::isxdigit(c) || c == ':' || c == '.';
            }))
            return invalid(text, "the IPv6 address holds other characters than hexadecimal digits, ':' and '.'");
    } else {
        if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
            host = authority.substr(0, colon);
            port = authority.substr(colon + 1);
            if (port.empty())
                return invalid(text, "a ':' with no port after it");
        }
        if (host.empty())
            return invalid(text, "it names no host");
        if (host.size() > 253 || !std::all_of(host.begin(), host.end(), [](unsigned char c) { return isHostChar(c); }))
            return invalid(text, "its host holds characters no DNS name or address has");
        if (host.ends_with('.'))
            host.remove_suffix(1);
    }
    url.host = lower(host);
    url.port = defaultPort(url.tls);
    if (!port.empty()) {
        unsigned value = 0;
        const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
        if (error != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
            return invalid(text, "its port is not a number from 1 to 65535");
        url.port = std::uint16_t(value);
    }
    auto target = checkedTarget(text, rest.substr(authorityEnd));
    if (!target)
        return target.error();
    url.target = std::move(target).value();
    if (!url.target.starts_with('/'))
        url.target.insert(0, "/"); // "http://host?x" asks for "/?x"
    return url;
}

Result<HttpUrl> resolveUrl(const HttpUrl& base, std::string_view reference) {
    const std::size_t colon = reference.find(':');
    const std::size_t slash = reference.find('/');
    if (colon != std::string_view::npos && (slash == std::string_view::npos || colon < slash) &&
        reference.find("://") == colon)
        return parseHttpUrl(reference);
    if (reference.starts_with("//"))
        return parseHttpUrl(std::string(base.tls ? "https:" : "http:") + std::string(reference));
    if (reference.empty())
        return base;
    HttpUrl url = base;
    std::string target;
    if (reference.starts_with('/')) {
        target = std::string(reference);
    } else if (reference.starts_with('?')) {
        target = base.target.substr(0, base.target.find('?')) + std::string(reference);
    } else {
        const std::string path = base.target.substr(0, base.target.find('?'));
        target = path.substr(0, path.rfind('/') + 1) + std::string(reference);
    }
    auto checked = checkedTarget(reference, target);
    if (!checked)
        return checked.error();
    url.target = std::move(checked).value();
    return url;
}

} // namespace warren
