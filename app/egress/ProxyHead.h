#pragma once
// The head of a request the agent's tools send to the egress proxy, read and made safe to pass on. Pure: the
// proxy (EgressProxy) hands it bytes and acts on the result.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace warren::control {

// A request the agent's tools sent to the proxy: CONNECT host:port (HTTPS and anything else that tunnels),
// or a plain-HTTP request in absolute form ("GET http://host[:port]/path HTTP/1.1").
struct ProxyRequest {
    bool tunnel = false; // CONNECT
    std::string method;  // "CONNECT", "GET", ...
    std::string host;    // lowercase, no brackets, no trailing dot
    std::uint16_t port = 0;
    // Plain HTTP: the head to send upstream, ending in an empty line: the request line in origin form
    // ("GET /path HTTP/1.1"), Host set to the target's authority (so the head cannot name another site than
    // the one connected to), Proxy-Authorization, Proxy-Connection and the hop-by-hop headers removed, and
    // "Connection: close". Empty for CONNECT.
    std::string upstreamHead;
};

inline constexpr std::size_t kMaxProxyHeadBytes = 16 * 1024;

struct ParsedProxyHead {
    ProxyRequest request;
    std::size_t consumed = 0; // bytes of the buffer the head took; what follows is body (or tunnel) data
};

// Reads the head at the start of buffer. std::nullopt while it is incomplete and can still end within
// kMaxProxyHeadBytes (the limit counts the whole head with its final CRLFCRLF). Otherwise an error with the
// HTTP status to answer and a message for the answer's body:
//   400  a malformed head: request line not "METHOD TARGET HTTP/1.x" with single spaces; bare CR or LF, NUL
//        or another control character; a header line starting with whitespace (obs-fold), without ':', or
//        with a name that is not a token; more than one Host; an origin-form or "*" target (not a proxy
//        request); a target host with characters no DNS name or address literal has (percent-encoding,
//        '_', backslash, IPvFuture, zone), no host, userinfo (user@host), a fragment, a bad or (CONNECT)
//        missing port; request smuggling: Content-Length with Transfer-Encoding, differing or non-decimal
//        Content-Length values, Transfer-Encoding not ending in exactly "chunked" (or naming it twice, or on
//        HTTP/1.0), Connection naming Content-Length or Transfer-Encoding; a CONNECT with a body
//   405  TRACE or TRACK (this proxy does not implement Max-Forwards)
//   414  no line end within the limit (the request line alone is too long)
//   431  the head is longer than the limit
//   501  a scheme other than http:// in absolute form (https:// says to use CONNECT)
//   505  an HTTP version other than 1.0 and 1.1
// The host is not checked against any policy here: that is matchHost's work (EgressPolicy.h).
struct ProxyHeadError {
    int status = 400;
    std::string message;
};
std::variant<std::nullopt_t, ParsedProxyHead, ProxyHeadError> parseProxyHead(std::string_view buffer);

} // namespace warren::control
