#pragma once
// Who a loop runs for, and the one place that says how a sub-agent's loop differs from the task's own
// agent's. TaskRun and CallRunner ask the rules, never the seat, so a new difference is a new rule here.

#include <cstdint>
#include <string>

namespace warren::agent {

// The task's own agent has id "" and depth 0; a sub-agent (spawn_agent) its id, role and depth.
struct AgentSeat {
    std::string id;
    std::string role;
    std::uint64_t depth = 0;
    bool isSubAgent() const { return !id.empty(); }
};

// The task's own agent is the task to the outside world; a sub-agent is a worker the team runs beside it,
// in the same sandbox, whose life the team announces (agent_started) and whose result its parent reads.
struct SeatRules {
    // Starts the team (AgentTeam), resumes its sub-agents with the task and stops them at the task's end.
    bool ownsTeam = true;
    // Keeps the event numbering (SeqMark); a sub-agent's events are numbered by the task's log.
    bool numbersEvents = true;
    // Opens the memory backend: the task's memory has one writer, so a sub-agent's tools leave it out.
    bool usesMemory = true;
    // Starts the workspace's MCP servers (.mcp.json) and offers their tools: a server is one connection,
    // used by one loop, so a sub-agent goes without them.
    bool usesMcpServers = true;
    // Fires the hooks: they follow the task's life, not each agent's.
    bool firesHooks = true;
    // Starts with task_started and the task's prompt, ends with task_finished and resource_report.json; a
    // sub-agent starts with its brief (subAgentBrief) and ends with agent_finished.
    bool announcesTask = true;
    // May end a step waiting for the user (RunFacts::attended); a sub-agent answers to its parent.
    bool mayWaitForUser = true;
    // Keeps the model's saved state (a script's position) in its checkpoint: the model is the task's. A
    // sub-agent keeps its files_changed and claims there instead, which its resumed run takes back.
    bool keepsModelState = true;
    // Holds a written path until it ends; the task's own agent only while its call writes.
    bool holdsClaimsUntilEnd = false;
    // Reads the messages its parent sent (send_agent) at the start of each step.
    bool readsInbox = false;
    // Names itself in each model call (LlmChatParams::agent) and gives its calls ids of its own
    // (subAgentCallId), so that agents sharing one model and one event log stay apart.
    bool namesItself = false;
};

SeatRules seatRules(const AgentSeat& seat);

} // namespace warren::agent
