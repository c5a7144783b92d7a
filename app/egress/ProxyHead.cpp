#include "app/egress/ProxyHead.h"

#include "app/egress/AsciiText.h"
#include "app/egress/EgressPolicy.h"

#include <algorithm>
#include <array>
#include <vector>

namespace warren::control {

namespace {

using namespace ascii;

constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kEndOfHead = "\r\n\r\n";

struct Header {
    std::string_view name;
    std::string_view value; // without the whitespace around it
};

ProxyHeadError fail(int status, std::string message) {
    return ProxyHeadError{status, std::move(message)};
}

std::optional<ProxyHeadError> findBadByte(std::string_view bytes, bool complete) {
    if (const char* bad = badHeadByte(bytes, complete))
        return fail(400, bad);
    return std::nullopt;
}

struct Authority {
    std::string host;
    std::optional<std::uint16_t> port;
};

// host[:port] as RFC 3986 writes it, IPv6 in brackets. Only the characters a DNS name or an address literal
// use: no userinfo, no percent-encoding, no IPvFuture or zone, so the host the policy checks is the host
// every later reader sees.
std::variant<Authority, ProxyHeadError> parseAuthority(std::string_view text) {
    if (text.find('@') != std::string_view::npos)
        return fail(400,
                    "the target holds credentials (user@host): proxy credentials are not used, remove them");
    Authority authority;
    std::string_view host = text;
    std::optional<std::string_view> portText;
    if (!text.empty() && text.front() == '[') {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos)
            return fail(400, "the target's IPv6 address has no closing ']'");
        host = text.substr(1, close - 1);
        const std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':')
                return fail(400, "the target has text after its IPv6 address");
            portText = rest.substr(1);
        }
        const bool valid = !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
            return isDigit(c) || (lower(c) >= 'a' && lower(c) <= 'f') || c == ':' || c == '.';
        });
        if (!valid)
            return fail(400, "the target's brackets hold no IPv6 address");
    } else {
        const std::size_t colon = text.find(':');
        if (colon != std::string_view::npos) {
            host = text.substr(0, colon);
            portText = text.substr(colon + 1);
        }
        const bool valid = std::all_of(host.begin(), host.end(), [](char c) {
            return isDigit(c) || (lower(c) >= 'a' && lower(c) <= 'z') || c == '-' || c == '.';
        });
        if (!valid)
            return fail(400, "the target's host holds characters no host name has; write it as example.com");
        if (!host.empty() && host.back() == '.')
            host.remove_suffix(1);
    }
    if (host.empty())
        return fail(400, "the target names no host");
    authority.host = lowered(host);
    if (portText) {
        authority.port = parsePort(*portText);
        if (!authority.port)
            return fail(400, "the target has a bad port: use a port from 1 to 65535");
    }
    return authority;
}

struct Target {
    Authority authority;
    std::string originForm; // plain HTTP only
};

std::variant<Target, ProxyHeadError> parseConnectTarget(std::string_view target) {
    auto parsed = parseAuthority(target);
    if (auto* error = std::get_if<ProxyHeadError>(&parsed))
        return std::move(*error);
    auto& authority = std::get<Authority>(parsed);
    if (!authority.port)
        return fail(400, "CONNECT needs host:port, such as CONNECT pypi.org:443 HTTP/1.1");
    return Target{std::move(authority), {}};
}

std::variant<Target, ProxyHeadError> parseAbsoluteTarget(std::string_view target) {
    const std::size_t schemeEnd = target.find("://");
    if (target.empty() || target.front() == '/' || target == "*" || schemeEnd == std::string_view::npos) {
        return fail(400,
                    "not a proxy request: send the target in absolute form (GET http://host/path HTTP/1.1), "
                    "or CONNECT host:port for HTTPS");
    }
    const std::string scheme = lowered(target.substr(0, schemeEnd));
    if (scheme == "https") {
        return fail(
            501, "HTTPS goes through CONNECT host:443, not https:// in absolute form; curl and pip do that "
                 "when HTTPS_PROXY is set");
    }
    if (scheme != "http")
        return fail(501, "only http:// targets and CONNECT are supported, not " + scheme + "://");
    const std::string_view rest = target.substr(schemeEnd + 3);
    const std::size_t authorityEnd = rest.find_first_of("/?#");
    const std::string_view authorityText = rest.substr(0, authorityEnd);
    std::string_view pathAndQuery = authorityEnd == std::string_view::npos ? "" : rest.substr(authorityEnd);
    if (pathAndQuery.find('#') != std::string_view::npos)
        return fail(400, "the target holds a fragment (#...): a request never sends one");
    auto parsed = parseAuthority(authorityText);
    if (auto* error = std::get_if<ProxyHeadError>(&parsed))
        return std::move(*error);
    Target result{std::move(std::get<Authority>(parsed)), {}};
    if (!result.authority.port)
        result.authority.port = 80;
    if (pathAndQuery.empty() || pathAndQuery.front() == '?')
        result.originForm = "/";
    result.originForm += pathAndQuery;
    return result;
}

// Headers that describe one connection (RFC 9110 section 7.6.1) or the proxy itself: never sent on.
bool isHopByHop(std::string_view name) {
    constexpr std::array<std::string_view, 8> kNames = {
        "connection", "proxy-connection", "proxy-authorization", "keep-alive", "te", "trailer", "upgrade",
        "host"};
    const std::string lower = lowered(name);
    return std::find(kNames.begin(), kNames.end(), lower) != kNames.end();
}

// Content-Length and Transfer-Encoding, checked the way a smuggler would hope they were not: a head with
// both, differing lengths, or a coding list that does not end in chunked is refused, since the proxy and
// the server behind it could read the body's end differently.
std::optional<ProxyHeadError> checkFraming(const std::vector<Header>& headers, bool http10, bool tunnel) {
    std::optional<std::string_view> length;
    std::vector<std::string_view> codings;
    bool hasTransferEncoding = false;
    for (const Header& header : headers) {
        if (equalsIgnoringCase(header.name, "content-length")) {
            for (std::string_view item : splitList(header.value)) {
                if (item.empty() || item.size() > 18 || !std::all_of(item.begin(), item.end(), isDigit))
                    return fail(400, "Content-Length is not a decimal number");
                if (length && *length != item)
                    return fail(400, "the request has several differing Content-Length values");
                length = item;
            }
        } else if (equalsIgnoringCase(header.name, "transfer-encoding")) {
            hasTransferEncoding = true;
            for (std::string_view item : splitList(header.value)) {
                if (!isToken(item))
                    return fail(400, "Transfer-Encoding holds an empty or malformed coding");
                codings.push_back(item);
            }
        }
    }
    if (length && hasTransferEncoding)
        return fail(400, "the request has both Content-Length and Transfer-Encoding; send only one");
    if (hasTransferEncoding) {
        if (http10)
            return fail(400, "an HTTP/1.0 request cannot use Transfer-Encoding");
        if (codings.back() != "chunked")
            return fail(400, "Transfer-Encoding must end in exactly \"chunked\"");
        const bool chunkedEarlier = std::any_of(codings.begin(), codings.end() - 1, [](std::string_view c) {
            return equalsIgnoringCase(c, "chunked");
        });
        if (chunkedEarlier)
            return fail(400, "Transfer-Encoding names chunked more than once");
    }
    if (tunnel && (hasTransferEncoding ||
                   (length && std::any_of(length->begin(), length->end(), [](char c) { return c != '0'; }))))
        return fail(400, "a CONNECT request has no body");
    return std::nullopt;
}

} // namespace

std::variant<std::nullopt_t, ParsedProxyHead, ProxyHeadError> parseProxyHead(std::string_view buffer) {
    const std::string_view window = buffer.substr(0, kMaxProxyHeadBytes);
    const std::size_t end = window.find(kEndOfHead);
    if (end == std::string_view::npos) {
        if (auto error = findBadByte(window, false))
            return *error;
        if (buffer.size() < kMaxProxyHeadBytes)
            return std::nullopt;
        if (window.find(kCrlf) == std::string_view::npos)
            return fail(414,
                        "the request line is longer than " + std::to_string(kMaxProxyHeadBytes) + " bytes");
        return fail(431, "the request head is longer than " + std::to_string(kMaxProxyHeadBytes) + " bytes");
    }
    const std::size_t consumed = end + kEndOfHead.size();
    const std::string_view head = buffer.substr(0, end + kCrlf.size()); // every line with its CRLF
    if (auto error = findBadByte(head, true))
        return *error;

    // Request line: METHOD SP TARGET SP VERSION, single spaces.
    const std::size_t lineEnd = head.find(kCrlf);
    const std::string_view requestLine = head.substr(0, lineEnd);
    const std::size_t firstSpace = requestLine.find(' ');
    const std::size_t lastSpace = requestLine.rfind(' ');
    if (firstSpace == std::string_view::npos || firstSpace == lastSpace)
        return fail(400, "the request line is not METHOD TARGET HTTP/1.1");
    const std::string_view method = requestLine.substr(0, firstSpace);
    const std::string_view target = requestLine.substr(firstSpace + 1, lastSpace - firstSpace - 1);
    const std::string_view version = requestLine.substr(lastSpace + 1);
    if (!isToken(method) || target.empty() || target.find(' ') != std::string_view::npos)
        return fail(400, "the request line is not METHOD TARGET HTTP/1.1");
    if (!std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; }))
        return fail(400, "the request target holds characters outside printable ASCII");
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
        if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && isDigit(version[5]) &&
            version[6] == '.' && isDigit(version[7]))
            return fail(505, "only HTTP/1.0 and HTTP/1.1 are supported");
        return fail(400, "the request line does not end in HTTP/1.1 or HTTP/1.0");
    }
    if (method == "TRACE" || method == "TRACK")
        return fail(405, std::string(method) + " is not supported by this proxy");

    // Header lines: name ":" OWS value OWS.
    std::vector<Header> headers;
    std::size_t position = lineEnd + kCrlf.size();
    while (position < head.size()) {
        const std::size_t next = head.find(kCrlf, position);
        const std::string_view line = head.substr(position, next - position);
        position = next + kCrlf.size();
        if (line.front() == ' ' || line.front() == '\t')
            return fail(400, "a header line starts with whitespace (obsolete line folding); write each "
                             "header on one line");
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            return fail(400, "a header line has no ':'");
        const std::string_view name = line.substr(0, colon);
        if (!isToken(name))
            return fail(400, "the header name \"" + std::string(name) +
                                 "\" holds characters a header name cannot have");
        headers.push_back(Header{name, trimmed(line.substr(colon + 1))});
    }
    const auto hostCount = std::count_if(headers.begin(), headers.end(), [](const Header& header) {
        return equalsIgnoringCase(header.name, "host");
    });
    if (hostCount > 1)
        return fail(400, "the request has more than one Host header");

    const bool tunnel = method == "CONNECT";
    auto parsedTarget = tunnel ? parseConnectTarget(target) : parseAbsoluteTarget(target);
    if (auto* error = std::get_if<ProxyHeadError>(&parsedTarget))
        return std::move(*error);
    auto& parsed = std::get<Target>(parsedTarget);
    if (auto error = checkFraming(headers, version == "HTTP/1.0", tunnel))
        return *error;

    ParsedProxyHead result;
    result.consumed = consumed;
    result.request.tunnel = tunnel;
    result.request.method = std::string(method);
    result.request.host = parsed.authority.host;
    result.request.port = *parsed.authority.port;
    if (tunnel)
        return result;

    // Headers the client's Connection header names are hop-by-hop too; naming the body's framing there would
    // make the proxy drop what tells the server where the body ends.
    std::vector<std::string> connectionNamed;
    for (const Header& header : headers) {
        if (!equalsIgnoringCase(header.name, "connection") &&
            !equalsIgnoringCase(header.name, "proxy-connection"))
            continue;
        for (std::string_view item : splitList(header.value)) {
            if (item.empty())
                continue;
            if (!isToken(item))
                return fail(400, "the Connection header holds something other than header names");
            if (equalsIgnoringCase(item, "content-length") || equalsIgnoringCase(item, "transfer-encoding"))
                return fail(400,
                            "the Connection header names " + std::string(item) + ", which frames the body");
            connectionNamed.push_back(lowered(item));
        }
    }

    std::string& upstream = result.request.upstreamHead;
    const bool ipv6 = result.request.host.find(':') != std::string::npos;
    std::string authority = ipv6 ? "[" + result.request.host + "]" : result.request.host;
    if (result.request.port != 80)
        authority += ":" + std::to_string(result.request.port);
    upstream.reserve(head.size() + 64);
    upstream.append(method).append(" ").append(parsed.originForm).append(" ").append(version).append(kCrlf);
    upstream.append("Host: ").append(authority).append(kCrlf);
    for (const Header& header : headers) {
        if (isHopByHop(header.name))
            continue;
        if (std::find(connectionNamed.begin(), connectionNamed.end(), lowered(header.name)) !=
            connectionNamed.end())
            continue;
        upstream.append(header.name).append(": ").append(header.value).append(kCrlf);
    }
    upstream.append("Connection: close").append(kCrlf).append(kCrlf);
    return result;
}

} // namespace warren::control
