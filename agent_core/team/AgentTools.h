#pragma once
// The tools that let an agent work with sub-agents in its own sandbox (AgentTeam):
//   spawn_agent {brief, role?}         start one; it works beside the caller in the same workspace
//   wait_agents {agents?, any?}        wait for all (or any) of them; their final messages and files
//   send_agent {agent, message}        a message its loop reads before its next model call
//   close_agent {agent}                stop one, with what it had done
// Offered only where the team allows the caller to start sub-agents (max_subagents, max_agent_depth).

#include "agent_core/team/AgentTeam.h"
#include "agent_core/tools/Tool.h"

#include <string>
#include <vector>

namespace warren::agent {

// The names, in the order the model is told about them.
const std::vector<std::string>& agentToolNames();

std::vector<ToolEntry> agentTools(AgentTeam& team, const AgentSeat& caller, const std::vector<std::string>& callerTools);

} // namespace warren::agent
