#include "agent_core/protocol/AgentKind.h"

#include <array>
#include <utility>

namespace warren::protocol {

namespace {

constexpr std::array<std::pair<AgentKind, std::string_view>, 3> kNames{{
    {AgentKind::Warren, "warren"},
    {AgentKind::ClaudeCode, "claude-code"},
    {AgentKind::Codex, "codex"},
}};

} // namespace

std::string_view agentKindName(AgentKind kind) {
    for (const auto& [each, name] : kNames)
        if (each == kind)
            return name;
    return "warren";
}

std::string agentKindNames() {
    return "warren, claude-code or codex";
}

Result<AgentKind> parseAgentKind(std::string_view name) {
    for (const auto& [kind, each] : kNames)
        if (each == name)
            return kind;
    return makeError(ErrorCode::InvalidArgument,
                     "unknown agent \"" + std::string(name) + "\": expected " + agentKindNames());
}

} // namespace warren::protocol
