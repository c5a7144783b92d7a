#include "agent_core/loop/ModelTurn.h"

#include "agent_core/context/Compaction.h"
#include "agent_core/context/CutReply.h"
#include "agent_core/context/TokenEstimate.h"
#include "agent_core/loop/CallRunner.h"
#include "agent_core/loop/ResourceReport.h"
#include "agent_core/team/AgentRoles.h"

#include <algorithm>

namespace warren::agent {

namespace {

using Clock = std::chrono::steady_clock;

// What a model that replied without a tool call is told in an unattended run (max_nudges).
constexpr const char* kNudge =
    "You replied without calling a tool. This run is unattended: nobody will answer or act on text. If the "
    "task is done and checked, call finish with your summary; otherwise go on with the next tool call.";
// ... and in an attended run, where only an empty reply is nudged (any other is the user's turn).
constexpr const char* kEmptyReplyNudge =
    "Your reply was empty. If the task is done and checked, call finish with your summary; if you need the "
    "user, write your question; otherwise go on with the next tool call.";

// What the model_response event shows of a reply's reasoning: the text of its thinking blocks.
std::string reasoningText(const std::vector<protocol::ReasoningBlock>& blocks) {
    std::string text;
    for (const auto& block : blocks) {
        if (block.text.empty())
            continue;
        text += (text.empty() ? "" : "\n\n") + block.text;
    }
    return text;
}

} // namespace

ModelTurn::ModelTurn(const RunContext& context, const AgentSeat& seat, AgentState& state,
                     const ToolRegistry& tools, TaskBudget& budget, const Deadline& stepDeadline)
    : m_context(context), m_seat(seat), m_rules(seatRules(seat)), m_state(state), m_tools(tools),
      m_budget(budget), m_stepDeadline(stepDeadline) {}

bool ModelTurn::attended() const {
    return m_context.facts.attended && m_rules.mayWaitForUser;
}

void ModelTurn::compactIfDue() {
    // The estimate is kept up to date as messages are added, so a step does not walk the whole conversation
    // unless it has to be compacted (or compress_history shortens old results every step).
    if (!m_contextTokens)
        m_contextTokens = estimateTokens(m_state.messages);
    if (m_context.config.compressHistory || *m_contextTokens > m_context.config.contextWindowLimit)
        compact();
}

void ModelTurn::addMessage(protocol::ChatMessage message) {
    if (m_contextTokens)
        *m_contextTokens += estimateTokens(message);
    m_state.messages.push_back(std::move(message));
}

std::optional<ModelTurn::End> ModelTurn::ask() {
    protocol::LlmChatParams params = chatParams(m_state.messages, offeredTools(m_tools));
    for (;;) {
        const auto started = Clock::now();
        auto reply = m_context.model.chat(params, m_stepDeadline, m_context.cancellation);
        if (!reply)
            return End{End::Kind::Failed, reply.error().message};
        auto& result = *reply;
        countModelCall(result.tokenUsage);
        if (m_rules.namesItself) {
            for (std::size_t i = 0; i < result.toolCalls.size(); ++i)
                result.toolCalls[i].id =
                    subAgentCallId(m_seat.id, m_state.counters.modelCalls, i, result.toolCalls[i].id);
        }
        m_context.events.emit(protocol::ModelResponseData{result.content, result.toolCalls,
                                                          result.finishReason,
                                                          reasoningText(result.reasoning)},
                              {std::nullopt, result.tokenUsage, millisSince(started)});
        if (result.finishReason == "length") {
            auto asked = onCutReply(result, params.maxOutputTokens.value_or(0));
            if (!asked)
                return std::nullopt; // the model was told; the next step asks it again
            if (std::holds_alternative<End>(*asked))
                return std::get<End>(*asked);
            params.maxOutputTokens = std::get<std::uint64_t>(*asked);
            continue;
        }
        return takeReply(result);
    }
}

std::optional<ModelTurn::End> ModelTurn::takeReply(protocol::LlmChatResult& result) {
    m_cutsInARow = 0;
    addMessage({"assistant", result.content, result.toolCalls, std::nullopt, std::move(result.reasoning)});
    std::optional<End> end;
    if (result.toolCalls.empty())
        end = onReplyWithoutCalls(result.content);
    else
        m_nudgesInARow = 0;
    // Not saved yet: the state written before the first call (or at the end of the step) holds this
    // reply. A kill before then asks the model again.
    m_state.pendingCalls = std::move(result.toolCalls);
    return end;
}

void ModelTurn::compact() {
    const auto& config = m_context.config;
    const std::uint64_t limit = config.contextWindowLimit;
    const bool byModel = config.compactionSummary == CompactionSummary::Model;
    auto compacted =
        compactHistory(m_state.messages, {limit, config.keepRecentMessages, config.compressHistory});
    if (compacted.cutCount && byModel) {
        // The model's summary may be longer than the mechanical one: cut so that it has room.
        compacted = compactHistory(m_state.messages, {limit - std::min(limit, handoffSummaryLimit(limit)),
                                                      config.keepRecentMessages, config.compressHistory});
    }
    std::string replacedBy;
    if (compacted.cutCount) {
        replacedBy = "the mechanical summary";
        if (byModel) {
            const auto handoff = writeHandoffSummary(compacted.cutMessages);
            if (handoff.summary) {
                auto& summary = compacted.messages[compacted.summaryIndex];
                const auto others = compacted.estimatedTokensAfter - estimateTokens(summary);
                summary = handoffSummaryMessage(compacted.summarisedMessages, *handoff.summary);
                compacted.estimatedTokensAfter = others + estimateTokens(summary);
                replacedBy =
                    "a handoff summary the model wrote (handoff prompt " + handoffPromptVersion() + ")";
            } else {
                replacedBy += " (the model's handoff summary was not used: " + handoff.problem + ")";
            }
        }
        m_context.events.log(LogLevel::Info,
                             "compacted the conversation: " + std::to_string(compacted.cutCount) +
                                 " messages summarised, about " +
                                 std::to_string(compacted.estimatedTokensBefore) + " -> " +
                                 std::to_string(compacted.estimatedTokensAfter) + " tokens");
    }
    if (compacted.droppedOutputs || compacted.cutCount) {
        std::string detail =
            "compacted the conversation from about " + std::to_string(compacted.estimatedTokensBefore) +
            " to " + std::to_string(compacted.estimatedTokensAfter) +
            " estimated tokens: " + std::to_string(compacted.droppedOutputs) + " old tool outputs dropped";
        if (compacted.cutCount)
            detail += ", " + std::to_string(compacted.cutCount) + " messages replaced by " + replacedBy;
        m_context.events.emit(protocol::GuardData{"context_window_limit", protocol::GuardAction::Warn, detail});
    }
    m_state.messages = std::move(compacted.messages);
    m_contextTokens = compacted.estimatedTokensAfter;
}

protocol::LlmChatParams ModelTurn::chatParams(std::vector<protocol::ChatMessage> messages,
                                              std::vector<protocol::ToolSpec> tools) const {
    const auto& config = m_context.config;
    protocol::LlmChatParams params{std::move(messages), std::move(tools)};
    if (config.maxOutputTokens)
        params.maxOutputTokens = config.maxOutputTokens;
    if (config.reasoningEffort != ReasoningEffort::Default)
        params.reasoningEffort = std::string(toString(config.reasoningEffort));
    if (m_rules.namesItself)
        params.agent = m_seat.id;
    return params;
}

void ModelTurn::countModelCall(const protocol::TokenUsage& usage) {
    m_state.counters.modelCalls++;
    m_state.counters.tokensIn += usage.input;
    m_state.counters.tokensOut += usage.output;
    m_state.counters.tokensReasoning += usage.reasoning;
    m_budget.add(0, usage.input + usage.output);
}

HandoffVerdict ModelTurn::writeHandoffSummary(const std::vector<protocol::ChatMessage>& cut) {
    // One call without tools, through the same model as every step, counted like one.
    const protocol::LlmChatParams params =
        chatParams(handoffRequest(m_state.prompt, cut, m_context.config.contextWindowLimit), {});
    auto reply = m_context.model.chat(params, m_stepDeadline, m_context.cancellation);
    if (!reply)
        return {std::nullopt, "the model call failed: " + reply.error().message};
    countModelCall(reply->tokenUsage);
    return checkHandoffSummary(*reply, m_context.config.contextWindowLimit);
}

std::optional<std::variant<std::uint64_t, ModelTurn::End>>
ModelTurn::onCutReply(protocol::LlmChatResult& result, std::uint64_t askedLimit) {
    ++m_cutsInARow;
    const std::uint64_t used = result.tokenUsage.output;
    const std::string what = describeCutReply(used, result.cutToolCalls);
    const CutReplyPlan plan = planForCutReply(used, askedLimit, m_cutsInARow);
    switch (plan.action) {
    case CutReplyPlan::Action::AskAgain:
        m_context.events.emit(protocol::GuardData{"max_output_tokens", protocol::GuardAction::Warn,
                                                  what + "; asking again with room for " +
                                                      std::to_string(plan.room) + " tokens"});
        return plan.room;
    case CutReplyPlan::Action::Stop: {
        const std::string detail = what + ", " + std::to_string(m_cutsInARow) +
                                   " replies in a row; raise max_output_tokens or make the task smaller";
        m_context.events.emit(protocol::GuardData{"max_output_tokens", protocol::GuardAction::Stop, detail});
        return End{End::Kind::Guard, detail};
    }
    case CutReplyPlan::Action::TellModel:
        break;
    }
    m_context.events.emit(protocol::GuardData{"max_output_tokens", protocol::GuardAction::Warn,
                                              what + "; the model is told to work in smaller pieces"});
    // The text it wrote stays in the conversation (it may have reasoned there); the calls do not.
    if (!result.content.empty())
        addMessage({"assistant", result.content, {}, std::nullopt, std::move(result.reasoning)});
    addMessage({"user", cutReplyNotice(used, result.cutToolCalls), {}, std::nullopt, {}});
    return std::nullopt;
}

std::optional<ModelTurn::End> ModelTurn::onReplyWithoutCalls(const std::string& content) {
    // Someone reads it: the turn is theirs. An empty reply says nothing to them, so it is nudged instead.
    const bool blank = content.find_first_not_of(" \t\r\n") == std::string::npos;
    if (attended() && !blank)
        return End{End::Kind::Waiting, content};
    if (m_nudgesInARow >= m_context.config.maxNudges)
        return End{End::Kind::LastWord, content};
    ++m_nudgesInARow;
    m_context.events.emit(protocol::GuardData{
        "max_nudges", protocol::GuardAction::Warn,
        "the model replied without a tool call; told to go on or call finish (" +
            std::to_string(m_nudgesInARow) + " of " + std::to_string(m_context.config.maxNudges) + ")"});
    addMessage({"user", attended() ? kEmptyReplyNudge : kNudge, {}, std::nullopt, {}});
    return std::nullopt;
}

} // namespace warren::agent
