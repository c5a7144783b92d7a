#pragma once
// The MCP servers an operator gives every user of a tenant (DESIGN §13, `warrend admin set-mcp-servers`): a
// .mcp.json document ({"mcpServers": {NAME: {...}}}) read by the agent's own reader (agent::parseMcpServers)
// before it is stored, so that what a task is given is what its agent starts; and what a user may be shown of
// them: each server's name and transport, never its command line, url, environment or headers, whose values
// may carry credentials. Pure.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warren::accounts {

// The agent's mcp_servers setting holds at most this much (agent_core/config/AgentConfig.cpp): the tenant's
// servers must fit it, and a task's own with them.
inline constexpr std::size_t kMaxTenantMcpServersBytes = 256 * 1024;

// The document's "mcpServers" object, as written (${VAR} references are left for the agent to expand in the
// sandbox, where each stands for a value when checked here). An error when the document is not one the agent
// reads, when it declares no server, more than the setting holds, or a server the agent would skip (named,
// with the agent's reason).
Result<nlohmann::json> readTenantMcpServers(std::string_view document);

struct McpServerSummary {
    std::string name;
    std::string transport; // "stdio", "http", "sse"
    friend bool operator==(const McpServerSummary&, const McpServerSummary&) = default;
};

// Each server of a stored "mcpServers" object, by name.
std::vector<McpServerSummary> summarizeMcpServers(const nlohmann::json& servers);

} // namespace warren::accounts
