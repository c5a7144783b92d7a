#include "app/providers/OpenAiStream.h"

#include "common/JsonFields.h"

namespace warren::control {

using nlohmann::json;
using namespace stream_json;

std::string mapOpenAiFinishReason(const std::string& reason, bool hasToolCalls) {
    if (reason == "length")
        return "length";
    if (hasToolCalls)
        return "tool_calls";
    return "stop"; // "stop", "content_filter", "tool_calls" without calls, or a server that sent none
}

Result<std::string> OpenAiStream::feed(const SseEvent& event) {
    if (m_done)
        return std::string(); // nothing follows [DONE]; a server that sends more is ignored
    if (event.data == "[DONE]") {
        m_done = true;
        return std::string();
    }
    // Depth-capped, like every reading of a server's JSON: a deeply nested chunk would overflow the stack
    // of the first copy or dump.
    const auto parsed = json_fields::parseJson(event.data);
    if (!parsed)
        return malformed("a line that is not JSON", event.data);
    const json& chunk = *parsed;
    if (!chunk.is_object())
        return malformed("a line that is not a JSON object", event.data);
    // vLLM, OpenRouter and others report a failure that happens after the 200 inside the stream.
    if (const auto error = chunk.find("error"); error != chunk.end() && !error->is_null()) {
        const std::string message = error->is_object() ? stringOr(*error, "message") : error->dump();
        return makeError(ErrorCode::System, "the model server reported an error mid-reply: " +
                                                excerpt(message.empty() ? error->dump() : message, 500));
    }
    if (const auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
        m_usage.input = uintOr(*usage, "prompt_tokens", m_usage.input);
        m_usage.output = uintOr(*usage, "completion_tokens", m_usage.output);
        if (const json* details = objectAt(*usage, "completion_tokens_details"))
            m_usage.reasoning = uintOr(*details, "reasoning_tokens", m_usage.reasoning);
    }
    const auto choices = chunk.find("choices");
    if (choices == chunk.end() || !choices->is_array())
        return malformed("a chunk without \"choices\"", event.data);
    std::string text;
    for (const json& choice : *choices) {
        if (!choice.is_object() || uintOr(choice, "index", 0) != 0)
            continue; // Warren asks for one choice (n = 1)
        if (const auto reason = choice.find("finish_reason"); reason != choice.end() && reason->is_string())
            m_finishReason = reason->get<std::string>();
        const auto delta = choice.find("delta");
        if (delta == choice.end() || !delta->is_object())
            continue;
        text += stringOr(*delta, "content");
        // Servers that show their model's reasoning send it apart from the reply: vLLM and DeepSeek as
        // reasoning_content, OpenRouter and Ollama as reasoning. OpenAI's own API shows none here.
        m_reasoning += stringOr(*delta, "reasoning_content");
        m_reasoning += stringOr(*delta, "reasoning");
        if (const auto calls = delta->find("tool_calls"); calls != delta->end() && calls->is_array()) {
            for (const json& fragment : *calls) {
                if (auto added = addToolCallFragment(fragment); !added)
                    return malformed(added.error().message, event.data);
            }
        }
    }
    m_content += text;
    return text;
}

Status OpenAiStream::addToolCallFragment(const json& fragment) {
    if (!fragment.is_object())
        return makeError(ErrorCode::System, "a tool call fragment that is not an object");
    std::uint64_t index = 0;
    if (const auto it = fragment.find("index"); it != fragment.end()) {
        if (!it->is_number_unsigned())
            return makeError(ErrorCode::System, "a tool call index that is not a number");
        index = it->get<std::uint64_t>();
    } else {
        // Some servers send each call whole and without an index: a new id starts a new call.
        const std::string id = stringOr(fragment, "id");
        index = m_calls.empty() ? 0 : m_calls.rbegin()->first;
        if (!m_calls.empty() && !id.empty() && m_calls.rbegin()->second.id != id)
            ++index;
    }
    PendingCall& call = m_calls[index];
    if (const std::string id = stringOr(fragment, "id"); !id.empty())
        call.id = id;
    if (const auto function = fragment.find("function"); function != fragment.end() && function->is_object()) {
        call.name += stringOr(*function, "name");
        if (const auto arguments = function->find("arguments"); arguments != function->end()) {
            if (arguments->is_string())
                call.arguments += arguments->get<std::string>();
            else if (arguments->is_object())
                call.arguments += arguments->dump(); // a server that sends the object itself
        }
    }
    return Ok{};
}

Result<protocol::LlmChatResult> OpenAiStream::result() const {
    if (!m_done)
        return makeError(ErrorCode::System, "the model server ended the stream without [DONE]: the reply is "
                                            "incomplete");
    protocol::LlmChatResult result;
    result.content = m_content;
    result.tokenUsage = m_usage;
    if (!m_reasoning.empty())
        result.reasoning.push_back({"thinking", m_reasoning, "", ""});
    const bool cut = m_finishReason == "length";
    for (const auto& [index, pending] : m_calls) {
        if (pending.name.empty())
            return makeError(ErrorCode::System, "the model server sent tool call " + std::to_string(index) +
                                                    " without a function name");
        protocol::ToolCall call;
        call.id = pending.id.empty() ? "call_" + std::to_string(index) : pending.id;
        call.name = pending.name;
        if (!pending.arguments.empty()) {
            const auto parsed = json_fields::parseJson(pending.arguments);
            const json arguments = parsed ? *parsed : json(json::value_t::discarded);
            if ((arguments.is_discarded() || !arguments.is_object()) && cut) {
                ++result.cutToolCalls; // the limit stopped the arguments half-way: not a call to run
                continue;
            }
            // A model's mistake, not the server's: the agent tells the model and the task goes on.
            if (arguments.is_discarded() || !arguments.is_object())
                call.invalidArguments = pending.arguments;
            else
                call.arguments = arguments;
        }
        result.toolCalls.push_back(std::move(call));
    }
    result.finishReason = mapOpenAiFinishReason(m_finishReason, !result.toolCalls.empty());
    return result;
}

} // namespace warren::control
