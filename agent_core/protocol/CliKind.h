#pragma once
// The coding-agent CLIs warren-agent can run under its supervisor instead of its own loop (DESIGN §11,
// docs/AGENT.md "A CLI agent"): a closed set, named here only. The name is what task.start's cli.kind, the
// CLI's --agent and the HTTP API's "agent" carry.

#include <array>
#include <optional>
#include <string_view>

namespace warren::protocol {

enum class CliKind { ClaudeCode, Codex };

inline constexpr std::array<CliKind, 2> kCliKinds{CliKind::ClaudeCode, CliKind::Codex};

std::string_view toString(CliKind kind); // "claude-code", "codex"
// nullopt for a name of no member.
std::optional<CliKind> cliKindFromName(std::string_view name);

} // namespace warren::protocol
