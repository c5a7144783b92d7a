#pragma once
// An http:// or https:// URL as a client connects to it: the scheme, the host (lowercase; an IPv6 literal
// without its brackets), the port, and the request target. Pure. Read strictly, because the URL may come
// from a file the user did not write (a workspace's .mcp.json) or from a server: no userinfo (user@host),
// no fragment, nothing a request line cannot carry (spaces, control characters), a host with only the
// characters a DNS name or an address literal has.

#include "common/Result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace warren {

struct HttpUrl {
    bool tls = false; // https
    std::string host;
    std::uint16_t port = 0;
    std::string target; // the path and the query, "/" when the URL has none

    // host:port, the port always (a CONNECT names it so); an IPv6 literal in brackets.
    std::string hostPort() const;
    // host[:port] as a Host header names it (the port left out when it is the scheme's).
    std::string authority() const;
    // scheme://authority: what "same origin" compares.
    std::string origin() const;
    std::string text() const; // origin + target
    friend bool operator==(const HttpUrl&, const HttpUrl&) = default;
};

inline constexpr std::size_t kMaxUrlBytes = 8 * 1024;

Result<HttpUrl> parseHttpUrl(std::string_view text);

// reference read against base, as a browser resolves a link: an absolute URL, "//host/path", "/path" or a
// path relative to base's directory; the query kept, a fragment refused.
Result<HttpUrl> resolveUrl(const HttpUrl& base, std::string_view reference);

} // namespace warren
