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
    std::string names;
    for (std::size_t i = 0; i < kNames.size(); ++i)
        names += std::string(i == 0 ? "" : i + 1 == kNames.size() ? " or " : ", ") + std::string(kNames[i].second);
    return names;
}

Result<AgentKind> parseAgentKind(std::string_view name) {
    for (const auto& [kind, each] : kNames)
        if (each == name)
            return kind;
    return makeError(ErrorCode::InvalidArgument,
                     "unknown agent \"" + std::string(name) + "\": expected " + agentKindNames());
}

std::optional<AgentKind> cliAgentFromName(std::string_view name) {
    auto kind = parseAgentKind(name);
    if (!kind || !isCliAgent(*kind))
        return std::nullopt;
    return *kind;
}

const char* cliCommandName(AgentKind kind) {
    return kind == AgentKind::ClaudeCode ? "claude" : "codex";
}

const char* cliPackageName(AgentKind kind) {
    return kind == AgentKind::ClaudeCode ? "@anthropic-ai/claude-code" : "@openai/codex";
}

} // namespace warren::protocol
