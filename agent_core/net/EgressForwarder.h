#pragma once
// Inside a sandbox whose network is a host allow-list there is no route out: its only way is the control
// plane's egress proxy, whose Unix socket is mounted into the sandbox. Tools speak HTTP proxy to
// 127.0.0.1:PORT (HTTP_PROXY, HTTPS_PROXY); this forwards each such connection to a new connection on that
// socket, bytes unchanged in both directions, half-closes passed on. It runs on one thread of its own
// (poll, non-blocking sockets), so a stalled connection never holds up another.

#include "common/Result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace warren::agent {

class EgressForwarder {
public:
    // Listens on 127.0.0.1:port (0: any free port, for tests) before it returns, then forwards until
    // destroyed. An error when the port cannot be bound; a socket that cannot be reached later only ends
    // the connection that tried it.
    static Result<std::unique_ptr<EgressForwarder>> start(const std::string& socketPath, std::uint16_t port);
    ~EgressForwarder(); // stops the thread and closes every connection

    std::uint16_t port() const;

    EgressForwarder(const EgressForwarder&) = delete;
    EgressForwarder& operator=(const EgressForwarder&) = delete;

private:
    struct State;
    explicit EgressForwarder(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

} // namespace warren::agent
