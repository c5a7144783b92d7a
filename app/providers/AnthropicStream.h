#pragma once
// The Anthropic Messages stream: message_start (input tokens), then per content block a
// content_block_start (text or tool_use with id and name), content_block_delta events (text_delta, or
// input_json_delta whose partial_json pieces concatenate to the tool input), content_block_stop; then
// message_delta (stop_reason, output tokens) and message_stop. ping is a keep-alive; error is a failure.
// Extended thinking arrives as thinking blocks (thinking_delta pieces, then a signature_delta) and
// redacted_thinking blocks (data whole in the start): they become the reply's reasoning, in order. With
// stop_reason "max_tokens" a tool_use whose input is not whole JSON was cut: counted, not returned.

#include "app/providers/ChatStreamDecoder.h"

#include <map>

namespace warren::control {

class AnthropicStream : public ChatStreamDecoder {
public:
    Result<std::string> feed(const SseEvent& event) override;
    bool complete() const override { return m_done; }
    Result<protocol::LlmChatResult> result() const override;
    const char* endMarker() const override { return "message_stop"; }

private:
    struct Block {
        std::string type; // "text", "tool_use", "thinking", "redacted_thinking", or one this decoder ignores
        std::string id;
        std::string name;
        std::string json;      // tool_use: the input, from the partial_json pieces; thinking: the text;
                               // redacted_thinking: the data
        std::string signature; // thinking
        nlohmann::json initialInput = nlohmann::json::object();
    };
    Result<std::string> onBlockStart(const nlohmann::json& data);
    Result<std::string> onBlockDelta(const nlohmann::json& data);
    void readUsage(const nlohmann::json& usage);

    std::string m_content;
    std::map<std::uint64_t, Block> m_blocks; // by index: the order the model wrote them
    std::string m_stopReason;
    protocol::TokenUsage m_usage;
    bool m_done = false;
};

// "stop", "tool_calls" or "length" from an Anthropic stop_reason.
std::string mapAnthropicStopReason(const std::string& reason, bool hasToolCalls);

} // namespace warren::control
