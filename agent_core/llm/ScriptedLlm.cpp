#include "agent_core/llm/ScriptedLlm.h"

#include <algorithm>
#include <poll.h>
#include <string>

namespace warren::agent {

namespace {

// What a scripted turn "costs" when the script does not say: about four characters a token, so budgets
// and reports behave as with a real model.
std::uint64_t approximateTokens(std::size_t characters) { return (characters + 3) / 4; }

// The characters of a value's text, near enough, without building the text: the whole conversation is
// walked on every call.
std::size_t textSize(const nlohmann::json& value) {
    if (value.is_string())
        return value.get_ref<const std::string&>().size() + 2;
    if (value.is_object()) {
        std::size_t size = 2;
        for (const auto& item : value.items())
            size += item.key().size() + 4 + textSize(item.value());
        return size;
    }
    if (value.is_array()) {
        std::size_t size = 2;
        for (const auto& item : value)
            size += textSize(item) + 1;
        return size;
    }
    return 8;
}

std::size_t callsSize(const std::vector<protocol::ToolCall>& calls) {
    std::size_t size = 0;
    for (const auto& call : calls)
        size += call.name.size() + textSize(call.arguments);
    return size;
}

std::uint64_t inputTokens(const protocol::LlmChatParams& params) {
    std::size_t characters = 0;
    for (const auto& message : params.messages)
        characters += message.content.size() + callsSize(message.toolCalls);
    return approximateTokens(characters);
}

std::uint64_t outputTokens(const protocol::LlmChatResult& result) {
    return approximateTokens(result.content.size() + callsSize(result.toolCalls));
}

// The calls whose results, after the last assistant message, say they were interrupted.
std::vector<protocol::ToolCall> interruptedCalls(const std::vector<protocol::ChatMessage>& messages) {
    std::vector<protocol::ToolCall> calls;
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
        if (it->role == "assistant") {
            for (const auto& call : it->toolCalls) {
                for (auto result = messages.rbegin(); result != it; ++result) {
                    if (result->role == "tool" && result->toolCallId == call.id &&
                        std::string_view(result->content).starts_with(kInterruptedResult))
                        calls.push_back(call);
                }
            }
            break;
        }
    }
    return calls;
}

// The script's pace: the turn arrives that long after it was asked for, or at once when the run is stopped.
void waitPace(std::chrono::milliseconds pace, const Cancellation& cancellation) {
    if (pace.count() <= 0 || cancellation.stopRequested())
        return;
    pollfd stop{cancellation.fd(), POLLIN, 0};
    (void)::poll(&stop, cancellation.fd() >= 0 ? 1 : 0, static_cast<int>(pace.count()));
}

} // namespace

ScriptedLlm::ScriptedLlm(protocol::Script script) : m_script(std::move(script)) {}

Result<protocol::LlmChatResult> ScriptedLlm::chat(const protocol::LlmChatParams& params,
                                                  std::chrono::steady_clock::time_point /*deadline*/,
                                                  const Cancellation& cancellation) {
    std::lock_guard lock(m_mutex);
    waitPace(m_script.pace, cancellation);
    protocol::LlmChatResult result;
    if (auto retry = interruptedCalls(params.messages); !retry.empty()) {
        result.content = "Running the interrupted call again.";
        for (auto& call : retry) {
            call.id += "_retry";
            result.toolCalls.push_back(std::move(call));
        }
    } else if (params.tools.empty()) {
        // A request without tools is compaction's handoff summary request: answered by the next turn when
        // that is text only; else refused without taking a turn, so a script written without such a
        // turn goes on as it was written (and compaction falls back to its mechanical summary).
        if (params.agent || m_position >= m_script.turns.size() || !m_script.turns[m_position].toolCalls.empty())
            return makeError(ErrorCode::InvalidArgument,
                             m_script.origin + ": the script has no turn for a request without tools (a handoff "
                                               "summary): put a turn with content and no tool_calls where it is asked");
        const auto& turn = m_script.turns[m_position++];
        result.content = turn.content;
        if (turn.usage)
            result.tokenUsage = *turn.usage;
    } else if (params.agent) {
        // A sub-agent's turns are its own, served by the replies its conversation has (as the control
        // plane's scripted provider serves every agent), so a resumed sub-agent gets the turn it is at.
        const auto* turns = m_script.turnsOf(params.agent);
        const auto served = static_cast<std::size_t>(std::count_if(
            params.messages.begin(), params.messages.end(), [](const auto& m) { return m.role == "assistant"; }));
        if (!turns || served >= turns->size())
            return makeError(ErrorCode::InvalidArgument,
                             m_script.origin + ": the script has no turn " + std::to_string(served + 1) + " for " +
                                 *params.agent + "; add its turns under \"agents\", ending with a finish call");
        const auto& turn = (*turns)[served];
        result.content = turn.content;
        result.toolCalls = turn.toolCalls;
        if (turn.usage)
            result.tokenUsage = *turn.usage;
    } else {
        if (m_position >= m_script.turns.size())
            return makeError(ErrorCode::InvalidArgument,
                             m_script.origin + ": the script has " + std::to_string(m_script.turns.size()) +
                                 " turns and the model was asked for another; end the script with a "
                                 "finish call");
        const auto& turn = m_script.turns[m_position++];
        result.content = turn.content;
        result.toolCalls = turn.toolCalls;
        if (turn.usage)
            result.tokenUsage = *turn.usage;
    }
    result.finishReason = result.toolCalls.empty() ? "stop" : "tool_calls";
    if (result.tokenUsage == protocol::TokenUsage{})
        result.tokenUsage = {inputTokens(params), outputTokens(result)};
    return result;
}

nlohmann::json ScriptedLlm::saveState() const {
    std::lock_guard lock(m_mutex);
    return {{"position", m_position}};
}

Status ScriptedLlm::restoreState(const nlohmann::json& state) {
    std::lock_guard lock(m_mutex);
    if (state.is_null())
        return Ok{};
    if (!state.is_object() || !state.contains("position") || !state["position"].is_number_unsigned() ||
        state["position"].get<std::size_t>() > m_script.turns.size())
        return makeError(ErrorCode::InvalidArgument,
                         "checkpoint: the scripted model's position does not fit " + m_script.origin +
                             " (was the script changed?)");
    m_position = state["position"].get<std::size_t>();
    return Ok{};
}

} // namespace warren::agent
