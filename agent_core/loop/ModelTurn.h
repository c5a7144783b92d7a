#pragma once
// The model's side of a step (DESIGN §3): the conversation it reads, kept under context_window_limit
// (Compaction.h, a handoff summary the model writes when compaction_summary is model), and its reply: a
// reply cut by the output limit is asked again or answered (CutReply.h), a reply without a tool call is the
// user's turn or nudged (max_nudges), a whole reply's calls become the step's pending calls. The loop
// (TaskRun) decides what an End means for the task.

#include "agent_core/loop/AgentSeat.h"
#include "agent_core/loop/RunContext.h"
#include "agent_core/loop/ToolRegistry.h"
#include "agent_core/prompt/HandoffPrompt.h"
#include "agent_core/state/Checkpoint.h"
#include "agent_core/team/TaskBudget.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace warren::agent {

class ModelTurn {
public:
    // How a reply ends the task, when it does.
    struct End {
        enum class Kind {
            Failed,   // the model call failed: detail says why
            Guard,    // max_output_tokens stopped the task: detail says why
            Waiting,  // an attended run's reply to the user, which ends the step: detail is the reply
            LastWord, // a reply without a call past max_nudges, which ends the step: detail is the reply
        };
        Kind kind;
        std::string detail;
    };

    // state: the run's, whose messages are the conversation. budget: the task's, which every model call
    // draws on. stepDeadline: the current step's, which the loop moves.
    ModelTurn(const RunContext& context, const AgentSeat& seat, AgentState& state, const ToolRegistry& tools,
              TaskBudget& budget, const Deadline& stepDeadline);

    // A user follows this loop (RunFacts::attended and SeatRules::mayWaitForUser).
    bool attended() const;

    // Compacts the conversation when it has grown past context_window_limit (or compress_history is on).
    void compactIfDue();
    // Asks the model for the step's reply; a whole one is in the conversation and state.pendingCalls.
    std::optional<End> ask();

    // Every message the run adds goes through here, which keeps the token estimate up to date.
    void addMessage(protocol::ChatMessage message);
    // The messages were replaced (a new conversation, history shed): the next step estimates them anew.
    void forgetEstimate() { m_contextTokens.reset(); }
    // The user answered: the nudges start again from none.
    void userReplied() { m_nudgesInARow = 0; }

private:
    // Brings the conversation under context_window_limit (Compaction.h): old outputs dropped, then turns
    // cut and replaced by a summary, the model's when compaction_summary is model and its answer passes.
    // A guard event (context_window_limit, warn) says what was done.
    void compact();
    // A model call's parameters as every call of this agent sends them (output limit, reasoning, agent).
    protocol::LlmChatParams chatParams(std::vector<protocol::ChatMessage> messages,
                                       std::vector<protocol::ToolSpec> tools) const;
    void countModelCall(const protocol::TokenUsage& usage); // in the counters and the task's budget
    HandoffVerdict writeHandoffSummary(const std::vector<protocol::ChatMessage>& cut);
    // A reply cut by the output limit (CutReply.h): the room to ask again with (a number), the guard's stop
    // (an End), or nullopt when the model was told and the next step goes on.
    std::optional<std::variant<std::uint64_t, End>> onCutReply(protocol::LlmChatResult& result,
                                                               std::uint64_t askedLimit);
    std::optional<End> takeReply(protocol::LlmChatResult& result);
    // A reply without a tool call: in an attended run the user's turn, else nudged to go on (max_nudges),
    // else the model's last word.
    std::optional<End> onReplyWithoutCalls(const std::string& content);

    const RunContext& m_context;
    AgentSeat m_seat;
    SeatRules m_rules;
    AgentState& m_state;
    const ToolRegistry& m_tools;
    TaskBudget& m_budget;
    const Deadline& m_stepDeadline;

    std::optional<std::uint64_t> m_contextTokens; // estimateTokens(m_state.messages); nullopt: not known
    unsigned m_cutsInARow = 0;                    // replies cut by the output limit since the last whole one
    std::uint64_t m_nudgesInARow = 0;             // replies without a tool call since the last with one
};

} // namespace warren::agent
