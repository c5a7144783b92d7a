#pragma once
// The CLI's own session, kept in the task's state directory (STATE/cli-session.json, written atomically):
// which CLI, its session id, and the last step, so that a start after a kill -9 of the CLI or of the control
// plane, or with the user's reply, continues the session (claude --resume, codex exec resume) and numbers its
// steps after the earlier ones.

#include "agent_core/protocol/CliKind.h"
#include "common/Result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace warren::agent {

struct CliSession {
    protocol::CliKind kind = protocol::CliKind::ClaudeCode;
    std::string id;
    std::uint64_t step = 0;
    friend bool operator==(const CliSession&, const CliSession&) = default;
};

inline constexpr const char* kCliSessionFile = "cli-session.json";

// nullopt when there is none yet; an error names the file when it cannot be read or is not one of ours
// (an id that isValidSessionId refuses included: it becomes an argument of the CLI).
Result<std::optional<CliSession>> readCliSession(const std::filesystem::path& stateDir);
Status writeCliSession(const std::filesystem::path& stateDir, const CliSession& session);

} // namespace warren::agent
