#pragma once
// What one client may take from the server. libmicrohttpd enforces the connection cap, the memory and the
// idle timeout; the server (ClientConnections) the per-client count and the head and body deadlines. The
// body limits are per route (RouteOptions).

#include <cstddef>

namespace warren::http {

struct HttpServerLimits {
    // At the cap a newcomer still gets in: the client holding the most connections loses its oldest one that
    // is not being answered.
    unsigned maxConnections = 1000;
    // Per client: an IPv4 address, or an IPv6 /64. 0 = none. Behind a reverse proxy every client has the
    // proxy's address: set it 0 there.
    unsigned maxConnectionsPerIp = 64;
    // A request's line and headers must all arrive within this long of the connection's accept (or of the
    // previous answer, on a kept-alive connection): a client sending a header line every few seconds, which
    // the idle timeout never catches, is cut here. 0 = none.
    unsigned headTimeoutSeconds = 20;
    // A body may take this long, plus a second for every minBodyBytesPerSecond bytes it has sent: one that
    // trickles slower is cut. With a rate of 0 the body must be whole within the grace; a grace of 0 = none.
    unsigned bodyGraceSeconds = 20;
    unsigned minBodyBytesPerSecond = 1024;
    // A connection with no traffic either way for this long is closed: a slow or silent client (slowloris),
    // and an event stream whose client stopped reading (the server cannot write, so nothing moves).
    // A sleeping stream (nothing to send) does not count down.
    unsigned idleTimeoutSeconds = 60;
    // libmicrohttpd's pool per connection: the request line and headers must fit (else 431), and the
    // response buffer comes from it.
    std::size_t connectionMemoryBytes = 64 * 1024;
    // How much an event stream hands libmicrohttpd at once; less than the connection memory.
    std::size_t streamBlockBytes = 16 * 1024;
};

} // namespace warren::http
