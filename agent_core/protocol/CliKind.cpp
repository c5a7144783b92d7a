#include "agent_core/protocol/CliKind.h"

namespace warren::protocol {

std::string_view toString(CliKind kind) {
    switch (kind) {
    case CliKind::ClaudeCode:
        return "claude-code";
    case CliKind::Codex:
        return "codex";
    }
    return "codex";
}

std::optional<CliKind> cliKindFromName(std::string_view name) {
    for (const CliKind kind : kCliKinds)
        if (toString(kind) == name)
            return kind;
    return std::nullopt;
}

} // namespace warren::protocol
