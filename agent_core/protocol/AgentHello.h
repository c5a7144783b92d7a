#pragma once
// The first line on a connection the agent opens to its control plane (`warren-agent serve --connect`),
// where stdin and stdout cannot carry the protocol: a Kubernetes pod has no stdin, and a cluster's pod
// reaches warrend over the network. The hello carries the task token, which the control plane checks before
// it sends or reads anything else; after it, the connection carries the protocol both ways, as the pipes
// would. docs/PROTOCOL.md, "Connecting over a socket".
//
// A cluster's pod has no socket of the control plane's host to mount, so a CLI agent's model calls cross the
// same listener: each connection the CLI opens to its model starts with a hello whose stream is "model",
// and then carries one HTTP request and its answer (ModelProxy).

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

// What the connection carries after its hello: the protocol (the agent's one connection per launch), or one
// of a CLI's model calls (any number, while the task runs).
enum class HelloStream { Protocol, Model };

struct AgentHello {
    std::string token;
    std::uint64_t protocolVersion = 0;
    HelloStream stream = HelloStream::Protocol;
};

// With its newline and this agent's protocol version; a model stream's says so ("stream": "model"), a
// protocol's names none (as agents before model streams sent it).
std::string helloLine(const std::string& token, HelloStream stream = HelloStream::Protocol);
// Strict: one agent.hello notification whose params are token, protocol_version and, optionally, stream
// ("protocol" or "model"), nothing else; a version other than this side's is an error that says to install
// matching versions.
Result<AgentHello> parseHello(std::string_view line);

} // namespace warren::protocol
