#pragma once
// The answer of GET /v1/me/mcp-servers (DESIGN §13, docs/SERVER.md): the MCP servers the caller's tasks are
// given besides their own, the operator's for every user of the caller's tenant (`warrend admin
// set-mcp-servers`). Pure.
//
//   {"servers": [{"name", "transport", "scope"}, ...]}   transport "stdio", "http" or "sse"; scope "tenant"
//
// Each server's name and transport alone: never its command line, url, environment or headers, whose values
// may carry the operator's credentials.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::wire {

struct McpServerEntry {
    std::string name;
    std::string transport;
    std::string scope = "tenant";
};

struct McpServerList {
    std::vector<McpServerEntry> servers;

    nlohmann::json toJson() const; // no client reads it yet (RemoteControlPlane has no use for it)
};

} // namespace warren::wire
