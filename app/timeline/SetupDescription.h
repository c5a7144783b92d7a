#pragma once
// What the agent says of its run's setup (protocol/SetupNotices.h), as the window's card and the terminal
// both show it: the skills offered ("2 skills offered: pdf, csv"), how they changed ("Skills changed: csv
// added"), an MCP server started or left out, and an MCP server that failed, said calmly as what it means for
// the task ("MCP server github is unavailable", with why and "the task goes on without its tools" as detail).
// Pure.

#include "agent_core/protocol/EventPayloads.h"

#include <optional>
#include <string>

namespace warren::timeline {

struct SetupDescription {
    enum class Topic { Skills, McpServer };
    Topic topic = Topic::Skills;
    std::string title;
    std::string detail;
    bool warning = false; // left out, or failed
};

// A log event (whatever its level; a warning is something left out) or a non-fatal error event (a server
// that failed); nullopt for one that is not about the setup, which a face shows as it shows any other.
std::optional<SetupDescription> describeSetup(const protocol::LogData& data);
std::optional<SetupDescription> describeSetup(const protocol::ErrorData& data);

} // namespace warren::timeline
