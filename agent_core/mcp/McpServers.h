#pragma once
// The MCP servers a workspace declares (DESIGN §13), read as Claude Code reads its .mcp.json:
//   {"mcpServers": {NAME: {"type"?: "stdio", "command": ..., "args"?: [...], "env"?: {...}}
//                       | {"type": "http" | "sse", "url": ..., "headers"?: {...}}}}
// ${VAR} and ${VAR:-default} in the command, the args, the env values, the url and the header values are
// replaced from the environment given (the agent's own). A document that cannot be read is an error; an
// entry that cannot be used is skipped with the reason, and the others load. The names the model calls
// the servers' tools by (mcp__SERVER__TOOL) are made here too. Pure.

#include "agent_core/protocol/McpToolName.h"
#include "common/Result.h"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warren::agent {

enum class McpTransport { Stdio, Http, Sse };
std::string_view toString(McpTransport transport); // "stdio", "http", "sse"

struct McpServer {
    std::string name;
    McpTransport transport = McpTransport::Stdio;
    std::string command;                                      // stdio: the program (looked up in PATH)
    std::vector<std::string> args;                            // stdio
    std::vector<std::pair<std::string, std::string>> env;     // stdio: set over the agent's environment
    std::string url;                                          // http, sse
    std::vector<std::pair<std::string, std::string>> headers; // http, sse
    friend bool operator==(const McpServer&, const McpServer&) = default;
};

struct McpServerList {
    std::vector<McpServer> servers;   // sorted by name
    std::vector<std::string> skipped; // one message per entry left out, naming it and saying why
};

// NAME -> VALUE, as the agent's environment holds them.
using Environment = std::map<std::string, std::string>;

inline constexpr std::size_t kMaxMcpConfigBytes = 1024 * 1024;
inline constexpr std::size_t kMaxMcpServers = 32;
inline constexpr std::size_t kMaxMcpServerNameBytes = 64;
inline constexpr std::size_t kMaxMcpArgs = 256;
inline constexpr std::size_t kMaxMcpVariables = 256; // env entries, and headers, of one server
// The model APIs' limit on a tool's name: ^[a-zA-Z0-9_-]{1,128}$.
inline constexpr std::size_t kMaxToolNameBytes = 128;

// The servers of a .mcp.json document. An error when it is not a JSON object of at most kMaxMcpConfigBytes
// with an "mcpServers" object; past kMaxMcpServers (by name), the rest are skipped.
Result<McpServerList> parseMcpServers(std::string_view document, const Environment& environment);

// The same reading where the agent's environment is not known yet (the window's Settings, a file imported
// there): a ${VAR} is left as written and taken as one the sandbox will have (a secret's placeholder, say),
// so an entry is skipped only for what no environment could fix. The servers' strings are as written.
Result<McpServerList> checkMcpServers(std::string_view document);

// Claude Code's expansion: ${VAR} is VAR's value (empty when set empty), ${VAR:-default} the default when VAR
// is not set. A VAR that is not set and has no default stays as written and is listed in missing.
struct Expansion {
    std::string text;
    std::vector<std::string> missing;
};
Expansion expandVariables(std::string_view text, const Environment& environment);

// A server name that can be part of a tool name: 1 to kMaxMcpServerNameBytes letters, digits, '_', '-'.
bool isValidServerName(std::string_view name);

// "mcp__" SERVER "__" TOOL, or an error naming both when that is not a name the model APIs accept.
Result<std::string> mcpToolName(std::string_view server, std::string_view tool);

// The names' parts and patterns (mcpToolPrefix, isMcpToolName, mcpToolListed) are protocol/McpToolName's.
using protocol::isMcpToolName;
using protocol::mcpToolListed;
using protocol::mcpToolPrefix;

} // namespace warren::agent
