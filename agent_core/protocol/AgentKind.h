#pragma once
// Which agent a task runs: Warren's own, or a CLI people already use (Claude Code, Codex) under Warren's
// supervisor in the same sandbox (DESIGN §11). Parsed once where a name comes in (`--agent`, a setting,
// `"agent"` in POST /v1/tasks, a stored task, task.start) and written back only through agentKindName().

#include "common/Result.h"

#include <optional>
#include <string>
#include <string_view>

namespace warren::protocol {

enum class AgentKind { Warren, ClaudeCode, Codex };

std::string_view agentKindName(AgentKind kind); // "warren", "claude-code", "codex"
std::string agentKindNames();                   // "warren, claude-code or codex", for messages
Result<AgentKind> parseAgentKind(std::string_view name); // the error names the valid ones
inline bool isCliAgent(AgentKind kind) { return kind != AgentKind::Warren; }
// A CLI's name ("claude-code", "codex": task.start's cli.kind, a CLI session's file); nullopt for any other.
std::optional<AgentKind> cliAgentFromName(std::string_view name);
// A CLI's executable's name on PATH ("claude", "codex") and the npm package that provides it; kind is a CLI.
const char* cliCommandName(AgentKind kind);
const char* cliPackageName(AgentKind kind);

} // namespace warren::protocol
