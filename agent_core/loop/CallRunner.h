#pragma once
// The tool calls of one reply, each in its turn (DESIGN §3): checked against what the model was offered,
// watched for a loop, approved when approval_tools names it, its paths claimed (PathClaims), run (from the
// execution cache, ahead beside its read-only neighbours, or now) and answered. The loop (TaskRun) owns the
// conversation and the checkpoint; it lends them to each call through Host.

#include "agent_core/context/LoopDetector.h"
#include "agent_core/loop/AgentSeat.h"
#include "agent_core/loop/ConcurrentCalls.h"
#include "agent_core/loop/RunContext.h"
#include "agent_core/loop/ToolRegistry.h"
#include "agent_core/state/Checkpoint.h"
#include "agent_core/team/PathClaims.h"
#include "agent_core/tools/ExecutionCache.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warren::agent {

// What the model is offered: the enabled tools, then finish.
std::vector<protocol::ToolSpec> offeredTools(const ToolRegistry& tools);

// A tool_result before its id and output are known (Host::record fills them in).
protocol::ToolResultData toolResultWith(std::optional<std::int64_t> exitCode);

class CallRunner {
public:
    struct Host {
        // The state written before a call starts (not fsync'd): a kill mid-call is known on resume.
        std::function<void()> saveBeforeCall;
        // The tool_result event (data completed with id, output) and the tool message the model reads.
        std::function<void(const protocol::ToolCall& call, std::string content, protocol::ToolResultData data,
                           std::optional<std::uint64_t> durationMs)>
            record;
    };

    // How the calls ended the task's step, when they did more than answer the model.
    struct End {
        enum class Kind {
            Finish,        // the model called finish: detail is its summary
            Guard,         // loop_detection or max_bad_calls stopped the task: detail says why
            StopRequested, // a stop cut an approval's wait short; the call stays first in state.pendingCalls
        };
        Kind kind;
        std::string detail;
    };

    // state: the run's, whose pendingCalls are run, counters counted and loop keys kept. stepDeadline: the
    // current step's, which the loop moves, and which this moves later by the time an approval waited for
    // the user (waiting is not working). filesChanged: every file a call of this run changed.
    CallRunner(const RunContext& context, const AgentSeat& seat, AgentState& state, ToolRegistry& tools,
               PathClaims& claims, Deadline& stepDeadline, std::set<std::string>& filesChanged,
               Host host);
    ~CallRunner();

    // Runs state.pendingCalls from the first until none is left, finish, a guard or a stop request (which
    // leaves the calls not started in state.pendingCalls for the checkpoint).
    std::optional<End> runPending();
    // Forgets every cached outcome (memory_threshold_mb).
    void clearCache() { m_cache.clear(); }

private:
    // A call checkToolCall refused: answered with what was wrong; max_bad_calls in a row stop the task.
    std::optional<End> refuseBadCall(const protocol::ToolCall& call, const std::string& problem);
    std::optional<End> runCall(const protocol::ToolCall& call);
    // loop_detection: the stop, or nullopt with the warning the call's answer ends with ("" when none).
    std::optional<End> checkLoop(const protocol::ToolCall& call, std::string& warning);
    // approval_tools: asks the approver. Denied: the model was told; Interrupted: a stop cut the wait short
    // and the call is back first in state.pendingCalls.
    enum class Approval { Approved, Denied, Interrupted };
    Approval askApproval(const protocol::ToolCall& call, const std::string& warning);
    // Claims every path the call writes (PathClaims): the conflict the model is told, or nullopt with the
    // paths claimed.
    std::optional<std::string> claimPaths(const protocol::ToolCall& call, std::vector<std::string>& claimed);
    void releaseCallClaims(const std::vector<std::string>& claimed);
    // The tool of a call that may run ahead of its turn, beside the others of its reply (ConcurrentCalls):
    // well-formed, read-only and safe to run concurrently, not waiting for an approval; else null.
    Tool* readAheadTool(const protocol::ToolCall& call);
    // Runs the pending calls from the first on that may run ahead, up to the first that may not, at the same
    // time; each is answered in its turn (executeTool). Calls the cache answers are left to it.
    void startReadAhead();
    bool needsApproval(const std::string& tool) const;
    // Why a call of tool waits for approval (approval.request's reason); empty when it does not.
    std::string approvalReason(const std::string& tool) const;
    ToolEnv toolEnv(const std::string& callId) const; // without the callbacks, which are the caller's
    // toolEnv with the callbacks that report the call's output, file changes and plan as its events.
    ToolEnv reportingEnv(const protocol::ToolCall& call);
    // cached: served from the execution cache; ranAheadMs: how long the tool ran, when it ran ahead.
    ToolOutcome executeTool(Tool& tool, const protocol::ToolCall& call, bool& cached,
                            std::optional<std::uint64_t>& ranAheadMs);
    // The answer of a call that ran: its output fitted to tool_output_limit_tokens, or that it was stopped.
    void recordRun(const protocol::ToolCall& call, ToolOutcome outcome, bool cached, std::uint64_t durationMs,
                   const std::string& warning);

    const RunContext& m_context;
    AgentSeat m_seat;
    SeatRules m_rules;
    AgentState& m_state;
    ToolRegistry& m_tools;
    PathClaims& m_claims;
    Deadline& m_stepDeadline; // moved later by the time spent waiting for an approval
    std::set<std::string>& m_filesChanged;
    Host m_host;

    ExecutionCache m_cache;
    LoopDetector m_loopDetector;
    std::unique_ptr<ConcurrentCalls> m_readAhead;       // the calls of the current run of read-only calls
    std::map<std::string, std::string> m_readAheadKeys; // call id -> cache key taken before it started
    std::uint64_t m_badCallsInARow = 0;                 // calls checkToolCall refused since the last good one
};

} // namespace warren::agent
