#pragma once
// `warren run --mcp-config FILE` (DESIGN §13): MCP servers declared as Claude Code's --mcp-config and
// .mcp.json declare them ({"mcpServers": {NAME: {...}}}), for one task, besides its workspace's .mcp.json.
// The files' servers become the task's mcp_servers setting, a later file's server replacing an earlier
// one's of the same name; what each server holds is the agent's to judge when it starts them, in the
// sandbox. Pure.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace warren::cli {

inline constexpr std::size_t kMaxMcpConfigFileBytes = 256 * 1024;

// Adds the servers of text (the file named where, for messages) to servers (an object by name).
Status addMcpConfig(nlohmann::json& servers, std::string_view text, const std::string& where);

} // namespace warren::cli
