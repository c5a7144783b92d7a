#pragma once
// One run of a task: the loop of DESIGN §3. Each step asks the model, runs the tool calls it made
// (CallRunner) and records what they returned, until finish, a guard, a stop request or a failure. The state
// is written to /state before each tool call (so a kill mid-call is known on resume) and, fsync'd, after
// each step. The same loop runs the task's own agent and each sub-agent; SeatRules says how they differ.

#include "agent_core/loop/AgentSeat.h"
#include "agent_core/loop/CallRunner.h"
#include "agent_core/loop/ModelTurn.h"
#include "agent_core/loop/RunContext.h"
#include "agent_core/loop/ToolRegistry.h"
#include "agent_core/mcp/McpServerSet.h"
#include "agent_core/memory/AgentMemory.h"
#include "agent_core/prompt/SystemPrompt.h"
#include "agent_core/skills/SkillLibrary.h"
#include "agent_core/state/CheckpointStore.h"
#include "agent_core/state/SeqMark.h"
#include "agent_core/team/AgentTeam.h"

#include <chrono>
#include <memory>
#include <optional>
#include <set>

namespace warren::agent {

class TaskRun {
public:
    // The task's own agent's run, which starts the task's team.
    explicit TaskRun(const RunContext& context);
    // A sub-agent's run (AgentTeam): its events, stop and state directory are its own, the team the task's.
    TaskRun(const RunContext& context, AgentTeam& team, AgentSeat seat);
    ~TaskRun();

    // prompt: the task's, or a sub-agent's brief. reply: the user's message to a task whose run ended
    // (Agent::run).
    TaskOutcome run(const std::string& taskId, const std::string& prompt,
                    const std::optional<std::string>& reply = std::nullopt);

    const RunCounters& counters() const { return m_state.counters; }
    // Workspace files this run's tools created, modified or deleted, sorted.
    std::vector<std::string> filesChanged() const { return {m_filesChanged.begin(), m_filesChanged.end()}; }

private:
    // The state opened, the team and tools set up, the task started or resumed: nullopt, or the outcome of
    // a task that cannot start (refuse).
    std::optional<TaskOutcome> start(const std::string& taskId, const std::string& prompt,
                                     const std::optional<std::string>& reply);
    Status openState(const std::string& taskId, const std::string& prompt);
    void startFresh(const std::string& taskId, const std::string& prompt);
    void resume(const std::optional<std::string>& reply);
    // The user's reply joins the conversation: calls the model made that never ran are answered first.
    void addReply(const std::string& reply);
    void setUpTools();
    // The workspace's MCP servers started (SeatRules::usesMcpServers), their tools added as enabled.
    void startMcpServers(std::vector<std::string>& enabled, std::vector<ToolEntry>& tools);
    // Before a step: the lists read again of the servers that said their tools changed.
    void refreshMcpTools();
    // What became of the servers, as events: an error for what failed, a log line for the rest.
    void reportMcpNotices();
    // The skills found (when the tools setting has skill), and whether the skill tool is offered: only
    // when there is at least one.
    void findSkills(std::vector<std::string>& enabled);
    // Before a step: the skills looked for again; when they changed, the system prompt's list and the
    // skill tool follow, for the model's next call.
    void refreshSkills();
    // The system prompt's skills section made to say what the skills are now.
    void updateSkillsSection();
    std::string skillsSectionText() const;
    // What became of the skills, as log lines: info for those offered and what changed, warn for a skill
    // skipped.
    void reportSkillNotices();
    void openMemory(); // m_memory, or m_memoryProblem saying why the memory tools are unavailable

    std::optional<TaskOutcome> checkGuards();
    // A new step: counted, the parent's messages read (SeatRules::readsInbox), step_started, its deadline,
    // the conversation compacted when it has grown past context_window_limit.
    void startStep();
    // The model's reply (ModelTurn), and how it ends the task when it does.
    std::optional<TaskOutcome> askModel();
    // The conversation a task starts with: the system prompt, the project's instructions, the task.
    void startConversation(const std::string& prompt);
    // The pending calls (CallRunner), and how they end the task when they do.
    std::optional<TaskOutcome> runPendingCalls();
    std::optional<TaskOutcome> endStep();
    std::optional<TaskOutcome> stopIfRequested();
    void shedMemory(std::uint64_t rssBytes);

    // The tool_result event (data completed with id, output, truncated) and the tool message the model reads.
    void recordToolResult(const protocol::ToolCall& call, std::string content, protocol::ToolResultData data,
                          std::optional<std::uint64_t> durationMs = std::nullopt);
    void saveCheckpoint(bool durable);
    TaskOutcome finish(ExitReason reason, std::string summary);
    // Ends a task that cannot start: an error event and task_finished, nothing written.
    TaskOutcome refuse(const std::string& message);
    void fireHook(const char* name, std::string detail = {}); // SeatRules::firesHooks
    void updateTimes();

    const RunContext m_context;
    std::unique_ptr<AgentTeam> m_ownTeam; // SeatRules::ownsTeam
    AgentTeam* m_team = nullptr;
    AgentSeat m_seat;
    SeatRules m_rules;
    std::set<std::string> m_filesChanged;

    std::optional<CheckpointStore> m_store;
    std::optional<SeqMark> m_seqMark;
    AgentState m_state;
    bool m_resumed = false;
    std::optional<protocol::ToolCall> m_interruptedOnStart;

    std::unique_ptr<AgentMemory> m_memory;
    std::string m_memoryProblem;
    std::unique_ptr<McpServerSet> m_mcp; // before m_tools, whose MCP tools use its servers
    std::unique_ptr<SkillLibrary> m_skills; // before m_tools, whose skill tool reads it
    std::unique_ptr<ToolRegistry> m_tools;
    bool m_memoryShed = false;

    std::chrono::steady_clock::time_point m_runStart;
    std::chrono::steady_clock::time_point m_stepDeadline = std::chrono::steady_clock::time_point::max();
    RunCounters m_countersAtStart;
    // How the step ends the task, when it does: finish and its summary, the model's last word past
    // max_nudges, or its reply to the user in an attended run (Waiting).
    std::optional<TaskOutcome> m_ending;
    // Last: they hold on to the members above.
    std::unique_ptr<CallRunner> m_calls;
    std::unique_ptr<ModelTurn> m_turn;
};

} // namespace warren::agent
