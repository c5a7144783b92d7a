#pragma once
// What a sub-agent may do, by its role, and what it is told when it starts (pure: the tools are asked
// whether they only read, never run). A role narrows the tools of the agent that starts it, never widens
// them:
//   worker    the starter's tools, without the memory tools (the task's memory has one writer)
//   explorer  read-only: the worker's tools that only read (Tool::readOnly()): read_file, list_files, search
// The agent tools (spawn_agent, ...) are added by the loop where max_agent_depth allows.

#include "common/Result.h"

#include <cstddef>
#include <cstdint>
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

// A sub-agent's tool call id, unique in the task: agents share the approvals and the events of one task,
// where the model's own ids repeat (a local model's "call_0" every turn, two agents' scripted "w"). The id
// is the agent's id before the model's, or before the number of the agent's model call and the call's
// index where that would be longer than providers accept (40). Deterministic, so a resumed agent names its
// calls as before.
std::string subAgentCallId(const std::string& agentId, std::uint64_t modelCall, std::size_t index,
                           const std::string& modelId);

} // namespace warren::agent
