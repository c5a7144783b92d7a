#pragma once
// The names MCP servers' tools go by (DESIGN §13): mcp__SERVER__TOOL, as Claude Code names them too, and the
// patterns a tool list (approval_tools) names them with: the tool itself, every tool of a server
// (mcp__SERVER__*), every MCP tool (mcp__*). One definition for the agent that makes and checks them, its
// settings that list them, and the faces that title a call by its server. Pure.

#include <optional>
#include <string>
#include <string_view>

namespace warren::protocol {

inline constexpr std::string_view kMcpToolPrefix = "mcp__";
inline constexpr std::string_view kMcpToolSeparator = "__";

// "mcp__" SERVER "__"
std::string mcpToolPrefix(std::string_view server);

// Whether a tool's name is an MCP server's (starts with mcp__).
bool isMcpToolName(std::string_view name);

// mcp__SERVER__TOOL taken apart at the first separator after the prefix; nullopt when it is not one (no
// server, no tool).
struct McpToolParts {
    std::string server;
    std::string tool;
};
std::optional<McpToolParts> splitMcpToolName(std::string_view name);

// Whether a list's entry is a pattern of MCP tools: mcp__SERVER__TOOL, mcp__SERVER__* or mcp__*, in the
// characters a tool's name may have (letters, digits, '_', '-'), at most 128 in all.
bool isMcpToolPattern(std::string_view entry);

// Whether a list's entry names the MCP tool: itself, its server's (mcp__SERVER__*) or every one (mcp__*).
bool mcpToolListed(std::string_view entry, std::string_view tool);

} // namespace warren::protocol
