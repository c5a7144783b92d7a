#pragma once
// What a sub-agent may do, by its role, and what it is told when it starts (pure). A role narrows the
// tools of the agent that starts it, never widens them:
//   worker    the starter's tools, without the memory tools (the task's memory has one writer)
//   explorer  read-only: read_file, list_files, search
// The agent tools (spawn_agent, ...) are added by the loop where max_agent_depth allows.

#include "common/Result.h"

#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

inline constexpr std::string_view kDefaultRole = "worker";

// The role names, in the order the spawn_agent tool lists them.
const std::vector<std::string>& roleNames();

// The tools (of the `tools` setting's names) an agent of role may call, given its starter's; an unknown
// role is an error naming the known ones.
Result<std::vector<std::string>> toolsForRole(std::string_view role, const std::vector<std::string>& starterTools);

// The first user message of a sub-agent: who it is, how it works beside the others, then the brief.
std::string subAgentBrief(const std::string& agentId, std::string_view role, const std::string& brief);

} // namespace warren::agent
