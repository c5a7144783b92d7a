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

// Reads the head at the start of buffer. std::nullopt while it is incomplete and still under
// kMaxProxyHeadBytes. An error (with the HTTP status to answer: 400, 405, 414/431, 501) for a malformed
// head, one over the limit, a scheme other than http:// in absolute form, an origin-form target (not a
// proxy request), a target without a host or with a bad port, bare CR/LF or NUL, obs-fold header lines,
// or conflicting Content-Length / Transfer-Encoding (request smuggling).
struct ProxyHeadError {
    int status = 400;
    std::string message;
};
std::variant<std::nullopt_t, ParsedProxyHead, ProxyHeadError> parseProxyHead(std::string_view buffer);

} // namespace warren::control
