#pragma once
// Stands in for the control plane's model proxy socket in tests: a Unix socket whose every connection is
// relayed, bytes unchanged both ways, to 127.0.0.1:port (a CliModelServer). warren-agent's forwarder
// connects to the socket; the CLI behind it then talks to the model double as it would to the proxy.

#include <cstdint>
#include <memory>
#include <string>

namespace warren::test {

class UnixTcpRelay {
public:
    UnixTcpRelay();
    ~UnixTcpRelay(); // stops, closes every connection, removes the socket
    UnixTcpRelay(const UnixTcpRelay&) = delete;
    UnixTcpRelay& operator=(const UnixTcpRelay&) = delete;

    bool start(const std::string& socketPath, std::uint16_t port);

private:
    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace warren::test
