#pragma once
// The OpenAI chat-completions stream (also served by Ollama, LM Studio, vLLM, llama.cpp and OpenRouter):
// `data: {chat.completion.chunk}` events, then `data: [DONE]`. Text arrives as choices[0].delta.content;
// a tool call arrives in fragments keyed by its index, with id and name in the first fragment and the
// arguments as pieces of one JSON string; with stream_options.include_usage the last chunk has empty
// choices and the usage (with completion_tokens_details.reasoning_tokens for reasoning models). With
// finish_reason "length" a call whose arguments are not whole JSON was cut by the output limit: it is
// counted in cutToolCalls, not returned.

#include "app/providers/ChatStreamDecoder.h"

#include <map>

namespace warren::control {

class OpenAiStream : public ChatStreamDecoder {
public:
    Result<std::string> feed(const SseEvent& event) override;
    bool complete() const override { return m_done; }
    Result<protocol::LlmChatResult> result() const override;
    const char* endMarker() const override { return "[DONE]"; }

private:
    struct PendingCall {
        std::string id;
        std::string name;
        std::string arguments; // the JSON text, concatenated from the fragments
    };
    Status addToolCallFragment(const nlohmann::json& fragment);

    std::string m_content;
    std::string m_reasoning; // reasoning_content / reasoning deltas, where a server sends them
    std::map<std::uint64_t, PendingCall> m_calls; // by the stream's index, which orders them
    std::string m_finishReason;
    protocol::TokenUsage m_usage;
    bool m_done = false;
};

// "stop", "tool_calls" or "length" from an OpenAI finish_reason. Some servers (older Ollama) say "stop"
// for a turn with tool calls; the calls decide then.
std::string mapOpenAiFinishReason(const std::string& reason, bool hasToolCalls);

} // namespace warren::control
