#include "agent_core/mcp/McpTool.h"

#include <algorithm>

namespace warren::agent {

McpTool::McpTool(McpConnection& server, std::string tool, std::string name)
    : m_server(server), m_tool(std::move(tool)), m_name(std::move(name)) {}

ToolOutcome McpTool::run(const nlohmann::json& arguments, const ToolEnv& env) {
    using Kind = McpConnection::Reply::Kind;
    const auto deadline = std::min(env.deadline, std::chrono::steady_clock::now() + kMcpCallTimeout);
    auto reply = m_server.callTool(m_tool, arguments, deadline, env.cancellation);
    switch (reply.kind) {
    case Kind::Result: {
        const auto read = readToolsCallResult(reply.result, env.outputLimitBytes);
        ToolOutcome outcome;
        outcome.ok = !read.isError;
        outcome.exitCode = read.isError ? 1 : 0;
        outcome.output = read.text;
        outcome.truncated = read.truncated;
        return outcome;
    }
    case Kind::TimedOut: {
        auto outcome = failure(m_name + ": " + reply.message);
        outcome.timedOut = true;
        return outcome;
    }
    case Kind::Cancelled: {
        auto outcome = failure(m_name + ": " + reply.message);
        outcome.cancelled = true;
        return outcome;
    }
    case Kind::Error:
    case Kind::Closed:
        break;
    }
    return failure(m_name + ": " + reply.message);
}

} // namespace warren::agent
