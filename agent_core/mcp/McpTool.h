#pragma once
// A tool of an MCP server (DESIGN §13), offered to the model as mcp__SERVER__TOOL with the server's
// description and input schema: a call is the server's tools/call with the model's arguments, within the
// step's deadline (and kMcpCallTimeout when the step has none), given up on a stop. What the server
// answers is read for the model (McpWire) and capped at ToolEnv::outputLimitBytes, head and tail kept. A
// server that stopped or broke makes every call a failure that says so, with the end of its stderr. Not
// read-only: what a server's tool does is unknown, so it is asked for as a tool with effects is
// (approvals, no cache).

#include "agent_core/mcp/McpConnection.h"
#include "agent_core/tools/Tool.h"

#include <chrono>
#include <string>

namespace warren::agent {

// How long one call may take when the step has no deadline (timeout_per_step_sec 0).
inline constexpr std::chrono::minutes kMcpCallTimeout{10};

class McpTool : public Tool {
public:
    // server outlives the tool (McpServerSet owns both). tool: the server's own name for it; name: the
    // model's (mcp__SERVER__TOOL).
    McpTool(McpConnection& server, std::string tool, std::string name);

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;

private:
    McpConnection& m_server;
    std::string m_tool;
    std::string m_name;
};

} // namespace warren::agent
