#pragma once
// The CLI's own session, kept in the task's state directory (STATE/cli-session.json, written atomically):
// which CLI, its session id, and the last step, so that a start after a kill -9 of the CLI or of the control
// plane, or with the user's reply, continues the session (claude --resume, codex exec resume) and numbers its
// steps after the earlier ones.

#include "agent_core/protocol/AgentKind.h"
#include "common/Result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace warren::agent {

struct CliSession {
    protocol::AgentKind kind = protocol::AgentKind::ClaudeCode;
    std::string id;
    std::uint64_t step = 0;
    friend bool operator==(const CliSession&, const CliSession&) = default;
};

inline constexpr const char* kCliSessionFile = "cli-session.json";

// nullopt when there is none yet; an error names the file when it cannot be read or is not one of ours
// (an id that isValidSessionId refuses included: it becomes an argument of the CLI).
Result<std::optional<CliSession>> readCliSession(const std::filesystem::path& stateDir);
// durable: fsync'd (the session's first record and the run's end); a step's record only survives a killed
// process, as SeqMark's does.
Status writeCliSession(const std::filesystem::path& stateDir, const CliSession& session, bool durable = true);

// Whether the CLI saved the session's conversation under its home (Claude Code under .claude/projects, Codex
// under .codex/sessions, a file named after the id). A CLI killed in its first turn may have named a session
// it never wrote: resuming it fails ("No conversation found"), so the supervisor starts a new one instead.
bool cliSessionSaved(protocol::AgentKind kind, const std::filesystem::path& home, const std::string& id);

} // namespace warren::agent
