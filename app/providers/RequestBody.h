#pragma once
// The JSON request each API expects for one llm.chat call. Pure, so the exact shape (which the servers
// check strictly) is tested field by field without a server.

#include "agent_core/protocol/Methods.h"
#include "app/providers/RequestDialect.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::control {

// POST {baseUrl}/chat/completions: messages as given (tool results are role "tool" with tool_call_id;
// an assistant's tool_calls carry their arguments as a JSON *string*; reasoning is never sent back),
// tools as {type: function, function: {name, description, parameters}}, streamed with the usage in a
// last chunk when the dialect takes stream_options. The output limit is params.maxOutputTokens, else
// defaultLimit (0: none sent), at most the dialect's ceiling, in the dialect's field; reasoning_effort
// when params asks for one and the dialect takes it. Nothing else (no temperature, top_p, ...): reasoning
// models refuse them.
nlohmann::json openAiRequestBody(const protocol::LlmChatParams& params, const std::string& model,
                                 std::uint64_t defaultLimit, const OpenAiDialect& dialect);

// Anthropic's extended thinking for one request: budget_tokens (0: thinking off) and max_tokens, which
// must exceed the budget and leaves at least kAnthropicAnswerRoom for the answer after it.
inline constexpr std::uint64_t kAnthropicMinThinkingBudget = 1024; // the API's minimum
inline constexpr std::uint64_t kAnthropicAnswerRoom = 4096;
struct AnthropicLimits {
    std::uint64_t maxTokens = 0;
    std::uint64_t thinkingBudget = 0;
    friend bool operator==(const AnthropicLimits&, const AnthropicLimits&) = default;
};
// limit: the task's output limit (0: 4096, the API requires one); effort: params.reasoningEffort
// (minimal 1024, low 4096, medium 10000, high 24000 thinking tokens); a ceiling the server stated wins,
// and thinking that no longer fits under it is turned off.
AnthropicLimits anthropicLimits(std::uint64_t limit, const std::optional<std::string>& effort,
                                const AnthropicDialect& dialect);

// POST {baseUrl}/v1/messages: the system messages joined into "system"; tool results become user
// messages of tool_result blocks and tool calls assistant tool_use blocks; consecutive messages of one
// role are merged (the API requires user and assistant to alternate); empty text blocks are left out
// (the API refuses them). An assistant message's thinking and redacted_thinking blocks go first in its
// content, exactly as the API returned them (it checks their signatures, and with thinking on requires
// them before the tool_use blocks the next tool results answer); thinking without a signature (another
// API's reasoning) is left out. thinking {type: enabled, budget_tokens} per anthropicLimits.
nlohmann::json anthropicRequestBody(const protocol::LlmChatParams& params, const std::string& model,
                                    std::uint64_t defaultLimit, const AnthropicDialect& dialect);

} // namespace warren::control
