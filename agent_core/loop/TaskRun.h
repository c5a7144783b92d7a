#pragma once
// One run of a task: the loop of DESIGN §3. Each step asks the model, runs the tool calls it made and
// records what they returned, until finish, a guard, a stop request or a failure. The state is written to
// /state before each tool call (so a kill mid-call is known on resume) and, fsync'd, after each step.

#include "agent_core/context/LoopDetector.h"
#include "agent_core/loop/Agent.h"
#include "agent_core/loop/ConcurrentCalls.h"
#include "agent_core/loop/ToolRegistry.h"
#include "agent_core/memory/AgentMemory.h"
#include "agent_core/prompt/HandoffPrompt.h"
#include "agent_core/prompt/SystemPrompt.h"
#include "agent_core/state/CheckpointStore.h"
#include "agent_core/state/SeqMark.h"
#include "agent_core/team/AgentTeam.h"
#include "agent_core/tools/ExecutionCache.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <variant>

namespace warren::agent {

class TaskRun {
public:
    TaskRun(const AgentConfig& config, const AgentSettings& settings, const RunFacts& facts, const Hooks& hooks, Llm& model,
            const Approver& approver, const HostCall& hostCall, const AgentPaths& paths, EventLog& events,
            Cancellation& cancellation);
    // A sub-agent's run (AgentTeam): its events, stop and state directory are its own, the team the task's.
    TaskRun(const AgentConfig& config, const AgentSettings& settings, const RunFacts& facts, const Hooks& hooks, Llm& model,
            const Approver& approver, const HostCall& hostCall, const AgentPaths& paths, EventLog& events,
            Cancellation& cancellation, AgentTeam& team, AgentSeat seat);
    ~TaskRun();

    // prompt: the task's, or a sub-agent's brief. reply: the user's message to a task whose run ended
    // (Agent::run).
    TaskOutcome run(const std::string& taskId, const std::string& prompt,
                    const std::optional<std::string>& reply = std::nullopt);

    const RunCounters& counters() const { return m_state.counters; }
    // Workspace files this run's tools created, modified or deleted, sorted.
    std::vector<std::string> filesChanged() const { return {m_filesChanged.begin(), m_filesChanged.end()}; }

private:
    Status openState(const std::string& taskId, const std::string& prompt);
    void startFresh(const std::string& taskId, const std::string& prompt);
    void resume(const std::optional<std::string>& reply);
    // The user's reply joins the conversation: calls the model made that never ran are answered first.
    void addReply(const std::string& reply);
    void setUpTools();

    std::optional<TaskOutcome> checkGuards();
    std::optional<TaskOutcome> askModel();
    // Brings the conversation under context_window_limit (Compaction.h): old outputs dropped, then turns
    // cut and replaced by a summary, the model's when compaction_summary is model and its answer passes.
    // A guard event (context_window_limit, warn) says what was done.
    void compactContext();
    // A model call's parameters as every call of this agent sends them (output limit, reasoning, agent).
    protocol::LlmChatParams chatParams(std::vector<protocol::ChatMessage> messages,
                                       std::vector<protocol::ToolSpec> tools) const;
    void countModelCall(const protocol::TokenUsage& usage); // in the counters and the task's budget
    HandoffVerdict writeHandoffSummary(const std::vector<protocol::ChatMessage>& cut);
    // A reply cut by the output limit (CutReply.h): the room to ask again with, the end of the task, or
    // nullopt when the model was told and the next step goes on.
    std::optional<std::variant<std::uint64_t, TaskOutcome>> onCutReply(protocol::LlmChatResult& result,
                                                                      std::uint64_t askedLimit);
    // What the model is offered: the enabled tools, then finish.
    std::vector<protocol::ToolSpec> offeredTools() const;
    // The conversation a task starts with: the system prompt, the project's instructions, the task.
    void startConversation(const std::string& prompt);
    // A reply without a tool call: in an attended run the user's turn (the task ends waiting), else nudged
    // to go on (max_nudges), else the model's last word.
    void onReplyWithoutCalls(const std::string& content);
    // A user follows the task's own agent (RunFacts::attended); a sub-agent answers to the agent that
    // started it.
    bool attended() const { return m_facts.attended && !m_seat.isSubAgent(); }
    std::optional<TaskOutcome> runPendingCalls();
    // A call checkToolCall refused: answered with what was wrong; max_bad_calls in a row stop the task.
    std::optional<TaskOutcome> refuseBadCall(const protocol::ToolCall& call, const std::string& problem);
    std::optional<TaskOutcome> runCall(const protocol::ToolCall& call);
    // The tool of a call that may run ahead of its turn, beside the others of its reply (ConcurrentCalls):
    // well-formed, read-only and safe to run concurrently, not waiting for an approval; else null.
    Tool* readAheadTool(const protocol::ToolCall& call);
    // Runs the pending calls from the first on that may run ahead, up to the first that may not, at the same
    // time; each is answered in its turn (executeTool). Calls the cache answers are left to it.
    void startReadAhead();
    ToolEnv toolEnv(const std::string& callId) const; // without the callbacks, which are the caller's
    // cached: served from the execution cache; ranAheadMs: how long the tool ran, when it ran ahead.
    ToolOutcome executeTool(Tool& tool, const protocol::ToolCall& call, bool& cached,
                            std::optional<std::uint64_t>& ranAheadMs);
    std::optional<TaskOutcome> endStep();
    std::optional<TaskOutcome> stopIfRequested();
    void shedMemory(std::uint64_t rssBytes);

    // The tool_result event (data completed with id, output, truncated) and the tool message the model reads.
    void recordToolResult(const protocol::ToolCall& call, std::string content, protocol::ToolResultData data,
                          std::optional<std::uint64_t> durationMs = std::nullopt);
    void addMessage(protocol::ChatMessage message);
    void saveCheckpoint(bool durable);
    TaskOutcome finish(ExitReason reason, std::string summary);
    // Ends a task that cannot start: an error event and task_finished, nothing written.
    TaskOutcome refuse(const std::string& message);
    void fireHook(const char* name, std::string detail = {});
    // Claims every path the call writes (PathClaims): the conflict the model is told, or nullopt with the
    // paths claimed.
    std::optional<std::string> claimPaths(const protocol::ToolCall& call, std::vector<std::string>& claimed);
    void releaseCallClaims(const std::vector<std::string>& claimed);
    void updateTimes();

    const AgentConfig& m_config;
    const AgentSettings& m_settings;
    const RunFacts& m_facts;
    const Hooks& m_hooks;
    Llm& m_model;
    const Approver& m_approver;
    const HostCall& m_hostCall;
    AgentPaths m_paths;
    EventLog& m_events;
    Cancellation& m_cancellation;

    std::unique_ptr<AgentTeam> m_ownTeam; // the task's own agent only
    AgentTeam* m_team = nullptr;
    AgentSeat m_seat;
    std::set<std::string> m_filesChanged;

    std::optional<CheckpointStore> m_store;
    std::optional<SeqMark> m_seqMark;
    AgentState m_state;
    bool m_resumed = false;
    std::optional<protocol::ToolCall> m_interruptedOnStart;

    std::unique_ptr<AgentMemory> m_memory;
    std::string m_memoryProblem;
    std::unique_ptr<ToolRegistry> m_tools;
    ExecutionCache m_cache;
    std::unique_ptr<ConcurrentCalls> m_readAhead;       // the calls of the current run of read-only calls
    std::map<std::string, std::string> m_readAheadKeys; // call id -> cache key taken before it started
    LoopDetector m_loopDetector;
    bool m_memoryShed = false;
    std::optional<std::uint64_t> m_contextTokens; // estimateTokens(m_state.messages); nullopt: not known

    std::chrono::steady_clock::time_point m_runStart;
    std::chrono::steady_clock::time_point m_stepDeadline = std::chrono::steady_clock::time_point::max();
    RunCounters m_countersAtStart;
    // How the step ends the task, when it does: finish and its summary, the model's last word past
    // max_nudges, or its reply to the user in an attended run (Waiting).
    std::optional<TaskOutcome> m_ending;
    unsigned m_cutsInARow = 0; // replies cut by the output limit since the last whole one
    std::uint64_t m_badCallsInARow = 0; // calls checkToolCall refused since the last good one
    std::uint64_t m_nudgesInARow = 0;   // replies without a tool call since the last with one
};

} // namespace warren::agent
