#pragma once
// The first line on a connection the agent opens to its control plane (`warren-agent serve --connect`),
// where stdin and stdout cannot carry the protocol: a Kubernetes pod has no stdin, and a cluster's pod
// reaches warrend over the network. The hello carries the task token, which the control plane checks before
// it sends or reads anything else; after it, the connection carries the protocol both ways, as the pipes
// would. docs/PROTOCOL.md, "Connecting over a socket".

#include "common/Result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warren::protocol {

namespace method {
inline constexpr const char* kAgentHello = "agent.hello"; // agent -> control plane, notification, first
} // namespace method

// A hello longer than this is refused unread: a token is 64 characters, the line about 120.
inline constexpr std::size_t kMaxHelloBytes = 4096;

struct AgentHello {
    std::string token;
    std::uint64_t protocolVersion = 0;
};

std::string helloLine(const std::string& token); // with its newline, this agent's protocol version
// Strict: one agent.hello notification whose params are exactly token and protocol_version; a version
// other than this side's is an error that says to install matching versions.
Result<AgentHello> parseHello(std::string_view line);

} // namespace warren::protocol
