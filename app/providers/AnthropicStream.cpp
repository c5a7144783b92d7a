#include "app/providers/AnthropicStream.h"

#include "common/JsonFields.h"

namespace warren::control {

using nlohmann::json;
using namespace stream_json;

std::string mapAnthropicStopReason(const std::string& reason, bool hasToolCalls) {
    if (reason == "max_tokens")
        return "length";
    if (hasToolCalls)
        return "tool_calls";
    return "stop"; // end_turn, stop_sequence, refusal, pause_turn
}

Result<std::string> AnthropicStream::feed(const SseEvent& event) {
    if (m_done)
        return std::string();
    // Depth-capped, like every reading of a server's JSON: a deeply nested event would overflow the stack
    // of the first copy or dump.
    const auto parsed = json_fields::parseJson(event.data);
    if (!parsed)
        return malformed("a line that is not JSON", event.data);
    const json& data = *parsed;
    if (!data.is_object())
        return malformed("a line that is not a JSON object", event.data);
    // The data's "type" repeats the event name; it is the one the API documents as authoritative.
    const std::string type = stringOr(data, "type");
    if (type == "ping")
        return std::string();
    if (type == "error") {
        const json* error = objectAt(data, "error");
        const std::string kind = error ? stringOr(*error, "type") : std::string();
        const std::string message = error ? stringOr(*error, "message") : std::string();
        return makeError(ErrorCode::System, "the model server reported " + (kind.empty() ? "an error" : kind) +
                                                " mid-reply: " + excerpt(message.empty() ? event.data : message, 500));
    }
    if (type == "message_start") {
        if (const json* message = objectAt(data, "message"))
            if (const json* usage = objectAt(*message, "usage"))
                readUsage(*usage);
        return std::string();
    }
    if (type == "content_block_start")
        return onBlockStart(data);
    if (type == "content_block_delta")
        return onBlockDelta(data);
    if (type == "content_block_stop")
        return std::string();
    if (type == "message_delta") {
        if (const json* delta = objectAt(data, "delta"))
            if (const std::string reason = stringOr(*delta, "stop_reason"); !reason.empty())
                m_stopReason = reason;
        if (const json* usage = objectAt(data, "usage"))
            readUsage(*usage);
        return std::string();
    }
    if (type == "message_stop") {
        m_done = true;
        return std::string();
    }
    if (type.empty())
        return malformed("an event without a \"type\"", event.data);
    return std::string(); // the API may add event types; ignoring them is what its documentation asks
}

void AnthropicStream::readUsage(const json& usage) {
    // message_start carries the input tokens, message_delta the (cumulative) output tokens; newer API
    // versions repeat the input tokens in message_delta too.
    if (const auto it = usage.find("input_tokens"); it != usage.end() && it->is_number_unsigned())
        m_usage.input = it->get<std::uint64_t>();
    if (const auto it = usage.find("output_tokens"); it != usage.end() && it->is_number_unsigned())
        m_usage.output = it->get<std::uint64_t>();
}

Result<std::string> AnthropicStream::onBlockStart(const json& data) {
    const auto index = data.find("index");
    const json* block = objectAt(data, "content_block");
    if (index == data.end() || !index->is_number_unsigned() || !block)
        return malformed("a content_block_start without index or content_block", data.dump());
    Block& started = m_blocks[index->get<std::uint64_t>()];
    started.type = stringOr(*block, "type");
    if (started.type == "text") {
        const std::string text = stringOr(*block, "text");
        m_content += text;
        return text;
    }
    if (started.type == "thinking") {
        started.json = stringOr(*block, "thinking");
        started.signature = stringOr(*block, "signature");
    }
    if (started.type == "redacted_thinking")
        started.json = stringOr(*block, "data");
    if (started.type == "tool_use") {
        started.id = stringOr(*block, "id");
        started.name = stringOr(*block, "name");
        if (const json* input = objectAt(*block, "input"))
            started.initialInput = *input;
    }
    return std::string();
}

Result<std::string> AnthropicStream::onBlockDelta(const json& data) {
    const auto index = data.find("index");
    const json* delta = objectAt(data, "delta");
    if (index == data.end() || !index->is_number_unsigned() || !delta)
        return malformed("a content_block_delta without index or delta", data.dump());
    const auto block = m_blocks.find(index->get<std::uint64_t>());
    if (block == m_blocks.end())
        return malformed("a content_block_delta for a block that was not started", data.dump());
    const std::string type = stringOr(*delta, "type");
    if (type == "text_delta") {
        const std::string text = stringOr(*delta, "text");
        m_content += text;
        return text;
    }
    if (type == "input_json_delta")
        block->second.json += stringOr(*delta, "partial_json");
    if (type == "thinking_delta")
        block->second.json += stringOr(*delta, "thinking");
    if (type == "signature_delta")
        block->second.signature += stringOr(*delta, "signature");
    return std::string(); // thinking is not part of the reply text; citations_delta is not used
}

Result<protocol::LlmChatResult> AnthropicStream::result() const {
    if (!m_done)
        return makeError(ErrorCode::System, "the model server ended the stream without message_stop: the "
                                            "reply is incomplete");
    protocol::LlmChatResult result;
    result.content = m_content;
    result.tokenUsage = m_usage;
    const bool cut = m_stopReason == "max_tokens";
    for (const auto& [index, block] : m_blocks) {
        if (block.type == "thinking") {
            // A block the limit cut before its signature cannot be sent back: the API would refuse it.
            if (!block.signature.empty() || !cut)
                result.reasoning.push_back({"thinking", block.json, block.signature, ""});
            continue;
        }
        if (block.type == "redacted_thinking") {
            result.reasoning.push_back({"redacted_thinking", "", "", block.json});
            continue;
        }
        if (block.type != "tool_use")
            continue;
        protocol::ToolCall call;
        call.id = block.id;
        call.name = block.name;
        if (call.name.empty())
            return makeError(ErrorCode::System,
                             "the model server sent tool_use block " + std::to_string(index) + " without a name");
        if (block.json.empty()) {
            call.arguments = block.initialInput; // a call without arguments streams no input_json_delta
        } else {
            const auto parsed = json_fields::parseJson(block.json);
            const json input = parsed ? *parsed : json(json::value_t::discarded);
            if ((input.is_discarded() || !input.is_object()) && cut) {
                ++result.cutToolCalls; // max_tokens stopped the input half-way: not a call to run
                continue;
            }
            // A model's mistake, not the server's: the agent tells the model and the task goes on.
            if (input.is_discarded() || !input.is_object())
                call.invalidArguments = block.json;
            else
                call.arguments = input;
        }
        result.toolCalls.push_back(std::move(call));
    }
    result.finishReason = mapAnthropicStopReason(m_stopReason, !result.toolCalls.empty());
    return result;
}

} // namespace warren::control
