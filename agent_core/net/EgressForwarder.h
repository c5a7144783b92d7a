#pragma once
// Inside a sandbox whose network is a host allow-list there is no route out: its only way is the control
// plane's egress proxy, whose Unix socket is mounted into the sandbox. Tools speak HTTP proxy to
// 127.0.0.1:PORT (HTTP_PROXY, HTTPS_PROXY); this forwards each such connection to a new connection on that
// socket, bytes unchanged in both directions, half-closes passed on. It runs on one thread of its own
// (poll, non-blocking sockets), so a stalled connection never holds up another.
//
// The same forwarder takes a CLI agent's model calls to the control plane's model proxy: to its socket on one
// host, or, in a cluster's pod, to the control plane's agents' listener over TCP, each connection opened
// with a hello (ForwardTarget::preamble) that says whose model stream it is.

#include "common/Result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <sys/socket.h>

namespace warren::agent {

// Where each connection is passed on, and the bytes sent there ahead of the client's.
struct ForwardTarget {
    sockaddr_storage address{};
    socklen_t length = 0;
    std::string preamble;
};

// A Unix socket's address; an error when the path is empty or too long for one.
Result<ForwardTarget> unixTarget(const std::string& socketPath);

class EgressForwarder {
public:
    // Listens on 127.0.0.1:port (0: any free port, for tests) before it returns, then forwards until
    // destroyed. An error when the port cannot be bound; a target that cannot be reached later only ends
    // the connection that tried it. A path: unixTarget(path).
    static Result<std::unique_ptr<EgressForwarder>> start(const ForwardTarget& target, std::uint16_t port);
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
