#pragma once
// The agents of one task: the task's own agent and the sub-agents it starts (spawn_agent), each running
// its own loop (TaskRun) on its own thread, in the same sandbox and workspace, with the same model, token
// and approver. The team keeps the limits (max_subagents open at once, max_agent_depth), the shared
// budget, the path claims, each sub-agent's inbox and result; it forwards a stop of the task (cancel,
// pause, the control plane gone) to every sub-agent at once. Each sub-agent checkpoints on its own in
// STATE/agents/ID/, beside agent.json (who started it, role, brief), so a task killed mid-way resumes
// every agent that had not ended.

#include "agent_core/loop/AgentSeat.h"
#include "agent_core/loop/RunContext.h"
#include "agent_core/state/Checkpoint.h"
#include "agent_core/team/PathClaims.h"
#include "agent_core/team/TaskBudget.h"
#include "agent_core/tools/Tool.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace warren::agent {

struct SubAgentTotals {
    std::uint64_t started = 0;
    RunCounters counters; // summed over the sub-agents
};

class AgentTeam {
public:
    // task: the context of the task's own agent, whose TaskRun owns the team and outlives it.
    AgentTeam(const RunContext& task, std::string taskId);
    ~AgentTeam(); // stops (cancel) and joins every sub-agent still running
    AgentTeam(const AgentTeam&) = delete;
    AgentTeam& operator=(const AgentTeam&) = delete;

    TaskBudget& budget() { return m_budget; }
    PathClaims& claims() { return m_claims; }

    // Whether an agent at depth may start sub-agents (max_subagents > 0, depth < max_agent_depth).
    bool canSpawnFrom(std::uint64_t depth) const;
    // The agent tools an agent at depth is offered (none when it may not start sub-agents).
    std::vector<ToolEntry> toolsFor(const AgentSeat& seat, const std::vector<std::string>& seatTools);

    // Starts a sub-agent of parent; its id, or why not (limits, role, a stopping task).
    Result<std::string> spawn(const AgentSeat& parent, const std::vector<std::string>& parentTools,
                              const std::string& callId, const std::string& brief, const std::string& role);
    // Waits until all (or, with any, one) of ids have ended; ids empty: every sub-agent of caller whose
    // result was not returned yet. Ends early at the deadline or a stop of the caller. The text tells the
    // model each one's end, final message and files, or that it still runs.
    ToolOutcome wait(const AgentSeat& caller, std::vector<std::string> ids, bool any, Deadline deadline,
                     const Cancellation& callerStop);
    Status send(const AgentSeat& caller, const std::string& id, const std::string& message);
    // Stops the sub-agent (and the ones it started) and returns what it had done.
    ToolOutcome close(const AgentSeat& caller, const std::string& id);

    // Messages sent to agent id since the last call, oldest first.
    std::vector<std::string> takeMessages(const std::string& id);

    // Every sub-agent recorded in the state directory: ended ones are known, the others run again from
    // their checkpoints. Called once by a resumed task.
    void resumeAll();
    // At the task's end: every sub-agent still running is stopped (Pause keeps them resumable) and joined.
    void stopAll(StopRequest why);
    SubAgentTotals totals() const;

private:
    struct Member;
    void start(Member& member);
    void runMember(Member& member);
    void join(Member& member);
    // m_mutex held: the members started by id, directly or below.
    std::vector<Member*> descendantsOf(const std::string& id);
    Member* childOf(const AgentSeat& caller, const std::string& id, std::string& problem); // m_mutex held
    std::string describeEnd(const Member& member) const;
    void forwardStops();
    void ensureForwarder(); // m_mutex held

    RunContext m_task;
    std::string m_taskId;
    TaskBudget m_budget;
    PathClaims m_claims;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<std::unique_ptr<Member>> m_members;
    std::uint64_t m_lastNumber = 0;
    StopRequest m_forwarded = StopRequest::None;
    int m_wakeFd = -1;
    std::thread m_forwarder;
};

} // namespace warren::agent
