#pragma once
// The user's own MCP servers (DESIGN §13: "plus --mcp-config FILE, Settings"), kept with the desktop's
// settings as .mcp.json's "mcpServers" holds them: by name, each {"command", "args"?, "env"?} or
// {"type": "http"|"sse", "url", "headers"?}. Every task this computer's plane starts, from the window or
// `warren run`, gets them in its mcp_servers setting; a task's own server of a name (`--mcp-config`, `--set
// mcp_servers=`) wins, and the workspace's .mcp.json, the less trusted, comes after both. They are checked
// with the agent's own reader (agent::checkMcpServers) before they are kept, so an entry the agent would
// leave out is refused with its reason. Pure.

#include "common/Result.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

// As much as the mcp_servers setting takes, and as large a file as an import reads.
inline constexpr std::size_t kMaxMcpServerSettingsBytes = 256 * 1024;

// One server: Ok, or why the agent would leave it out ("MCP server \"github\": no \"command\" ...").
Status checkMcpServer(const std::string& name, const nlohmann::json& entry);
// All of them: an object of at most agent::kMaxMcpServers servers and kMaxMcpServerSettingsBytes, each one
// passing checkMcpServer.
Status checkMcpServerSettings(const nlohmann::json& servers);

// A .mcp.json (Claude Code's, or a --mcp-config file) to import: the servers that pass, and one message per
// server refused. An error when the document is no .mcp.json at all, or larger than
// kMaxMcpServerSettingsBytes.
struct McpImport {
    nlohmann::json servers = nlohmann::json::object();
    std::vector<std::string> refused;
};
Result<McpImport> readMcpImport(std::string_view document);

// The servers a task starts with: the user's, and the task's own over them by name.
nlohmann::json withUsersMcpServers(const nlohmann::json& users, const nlohmann::json& tasks);

// One line for a list of servers: "stdio · npx -y server-github" or "http · https://mcp.example.com/mcp".
std::string describeMcpServer(const nlohmann::json& entry);

} // namespace warren::control
