#pragma once
// What one client may take from the server. libmicrohttpd enforces the counts, the memory and the
// timeouts; the body limits are per route (RouteOptions).

#include <cstddef>

namespace warren::http {

struct HttpServerLimits {
    unsigned maxConnections = 1000;
    // 0 = none. Behind a reverse proxy every client has the proxy's address: set it 0 there.
    unsigned maxConnectionsPerIp = 64;
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
