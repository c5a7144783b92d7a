#pragma once
// The JSON request each API expects for one llm.chat call. Pure, so the exact shape (which the servers
// check strictly) is tested field by field without a server.

#include "agent_core/protocol/Methods.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::control {

// POST {baseUrl}/chat/completions: messages as given (tool results are role "tool" with tool_call_id;
// an assistant's tool_calls carry their arguments as a JSON *string*), tools as
// {type: function, function: {name, description, parameters}}, streamed with the usage in a last chunk.
nlohmann::json openAiRequestBody(const protocol::LlmChatParams& params, const std::string& model,
                                 std::uint64_t maxTokens);

// POST {baseUrl}/v1/messages: the system messages joined into "system"; tool results become user
// messages of tool_result blocks and tool calls assistant tool_use blocks; consecutive messages of one
// role are merged (the API requires user and assistant to alternate); empty text blocks are left out
// (the API refuses them).
nlohmann::json anthropicRequestBody(const protocol::LlmChatParams& params, const std::string& model,
                                    std::uint64_t maxTokens);

} // namespace warren::control
