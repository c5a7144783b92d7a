#pragma once
// `warren-agent serve --connect ADDRESS`: the agent opens the protocol's connection to its control plane
// itself, where the sandbox cannot hand it stdin and stdout (a Kubernetes pod has no stdin; a cluster's pod
// reaches warrend over the network). ADDRESS is `unix:PATH` (a socket the control plane mounts into the
// sandbox) or `tcp:HOST:PORT`. The token comes from a file the control plane mounts (a Secret on a
// cluster), never from the command line, which every process of the host may read. The first line sent is
// the hello with the token (protocol/AgentHello.h); then the connection carries the protocol both ways.

#include "agent_core/net/EgressForwarder.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace warren::agent {

struct ControlAddress {
    enum class Kind { Unix, Tcp };
    Kind kind = Kind::Unix;
    std::string path; // unix
    std::string host; // tcp: a name or an address ([...] for IPv6)
    std::uint16_t port = 0;
};

Result<ControlAddress> parseControlAddress(std::string_view text); // pure
// HOST:PORT alone, as after tcp: (a listener's address: port 0 asks the kernel for a free one where anyPort).
Result<ControlAddress> parseTcpAddress(std::string_view hostPort, bool anyPort = false); // pure
std::string describe(const ControlAddress& address);               // as given: for messages

// The token in the file, without a trailing newline; an error when it is missing, empty, over 4 KiB or not
// one line of printable ASCII.
Result<std::string> readTokenFile(const std::string& path);

// Connects, trying again while the control plane is not there yet (refused, no such socket, no route) for
// up to `patience`, then sends the hello. The error says what the last attempt met.
Result<UniqueFd> connectToControlPlane(const ControlAddress& address, const std::string& token,
                                       std::chrono::milliseconds patience);

// A CLI agent's model calls in a cluster's pod: the control plane's TCP address, resolved now (its first
// address), each connection opened with the model stream's hello (protocol/AgentHello.h). An error when the
// address is not TCP or does not resolve.
Result<ForwardTarget> modelStreamTarget(const ControlAddress& address, const std::string& token);

} // namespace warren::agent
