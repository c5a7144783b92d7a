#include "app/providers/RequestBody.h"

#include <algorithm>

namespace warren::control {

using nlohmann::json;

namespace {

// A tool without parameters still needs an object schema: both APIs refuse a schema without "type".
json parameterSchema(const json& parameters) {
    if (!parameters.is_object() || parameters.empty())
        return json{{"type", "object"}, {"properties", json::object()}};
    return parameters;
}

json openAiMessage(const protocol::ChatMessage& message) {
    json out{{"role", message.role}};
    if (message.role == "tool") {
        out["tool_call_id"] = message.toolCallId.value_or("");
        out["content"] = message.content;
        return out;
    }
    if (message.role == "assistant" && !message.toolCalls.empty()) {
        // With tool calls the content may be null; an empty string is refused by some servers.
        out["content"] = message.content.empty() ? json(nullptr) : json(message.content);
        json calls = json::array();
        for (const protocol::ToolCall& call : message.toolCalls)
            calls.push_back({{"id", call.id},
                             {"type", "function"},
                             {"function", {{"name", call.name}, {"arguments", call.arguments.dump()}}}});
        out["tool_calls"] = std::move(calls);
        return out;
    }
    out["content"] = message.content;
    return out;
}

json anthropicBlocks(const protocol::ChatMessage& message) {
    json blocks = json::array();
    if (message.role == "assistant") {
        for (const protocol::ReasoningBlock& block : message.reasoning) {
            if (block.type == "redacted_thinking" && !block.data.empty())
                blocks.push_back({{"type", "redacted_thinking"}, {"data", block.data}});
            else if (block.type == "thinking" && !block.signature.empty())
                blocks.push_back({{"type", "thinking"}, {"thinking", block.text}, {"signature", block.signature}});
        }
    }
    if (message.role == "tool") {
        blocks.push_back({{"type", "tool_result"},
                          {"tool_use_id", message.toolCallId.value_or("")},
                          {"content", message.content}});
        return blocks;
    }
    if (!message.content.empty())
        blocks.push_back({{"type", "text"}, {"text", message.content}});
    if (message.role == "assistant") {
        for (const protocol::ToolCall& call : message.toolCalls)
            blocks.push_back({{"type", "tool_use"},
                              {"id", call.id},
                              {"name", call.name},
                              {"input", call.arguments.is_object() ? call.arguments : json::object()}});
    }
    return blocks;
}

} // namespace

json openAiRequestBody(const protocol::LlmChatParams& params, const std::string& model, std::uint64_t defaultLimit,
                       const OpenAiDialect& dialect) {
    json messages = json::array();
    for (const protocol::ChatMessage& message : params.messages)
        messages.push_back(openAiMessage(message));
    json body{{"model", model}, {"messages", std::move(messages)}};
    std::uint64_t limit = params.maxOutputTokens.value_or(defaultLimit);
    if (dialect.limitCeiling && limit > dialect.limitCeiling)
        limit = dialect.limitCeiling;
    if (limit)
        body[dialect.limitField == OpenAiDialect::LimitField::MaxTokens ? "max_tokens" : "max_completion_tokens"] =
            limit;
    if (params.reasoningEffort && dialect.reasoningEffort)
        body["reasoning_effort"] = *params.reasoningEffort;
    body["stream"] = true;
    if (dialect.streamOptions)
        body["stream_options"] = {{"include_usage", true}};
    if (!params.tools.empty()) {
        json tools = json::array();
        for (const protocol::ToolSpec& tool : params.tools)
            tools.push_back({{"type", "function"},
                             {"function",
                              {{"name", tool.name},
                               {"description", tool.description},
                               {"parameters", parameterSchema(tool.parameters)}}}});
        body["tools"] = std::move(tools);
    }
    return body;
}

AnthropicLimits anthropicLimits(std::uint64_t limit, const std::optional<std::string>& effort,
                                const AnthropicDialect& dialect) {
    AnthropicLimits out;
    out.maxTokens = limit ? limit : 4096;
    if (effort && dialect.thinking) {
        out.thinkingBudget = *effort == "minimal" ? kAnthropicMinThinkingBudget
                             : *effort == "low"   ? 4096
                             : *effort == "medium" ? 10000
                                                   : 24000;
        out.maxTokens = std::max(out.maxTokens, out.thinkingBudget + kAnthropicAnswerRoom);
    }
    if (dialect.limitCeiling && out.maxTokens > dialect.limitCeiling) {
        out.maxTokens = dialect.limitCeiling;
        if (out.thinkingBudget) {
            // Less thinking rather than none, as long as the API's minimum and some answer still fit.
            const std::uint64_t fits = out.maxTokens > kAnthropicAnswerRoom ? out.maxTokens - kAnthropicAnswerRoom : 0;
            out.thinkingBudget = fits >= kAnthropicMinThinkingBudget ? std::min(out.thinkingBudget, fits) : 0;
        }
    }
    return out;
}

json anthropicRequestBody(const protocol::LlmChatParams& params, const std::string& model, std::uint64_t defaultLimit,
                          const AnthropicDialect& dialect) {
    std::string system;
    json messages = json::array();
    for (const protocol::ChatMessage& message : params.messages) {
        if (message.role == "system") {
            if (!message.content.empty())
                system += (system.empty() ? "" : "\n\n") + message.content;
            continue;
        }
        json blocks = anthropicBlocks(message);
        if (blocks.empty())
            continue;
        const std::string role = message.role == "assistant" ? "assistant" : "user";
        if (!messages.empty() && messages.back()["role"] == role) {
            json& content = messages.back()["content"];
            for (json& block : blocks)
                content.push_back(std::move(block));
        } else {
            messages.push_back({{"role", role}, {"content", std::move(blocks)}});
        }
    }
    const AnthropicLimits limits =
        anthropicLimits(params.maxOutputTokens.value_or(defaultLimit), params.reasoningEffort, dialect);
    json body{{"model", model}, {"max_tokens", limits.maxTokens}, {"stream", true}, {"messages", std::move(messages)}};
    if (limits.thinkingBudget)
        body["thinking"] = {{"type", "enabled"}, {"budget_tokens", limits.thinkingBudget}};
    if (!system.empty())
        body["system"] = system;
    if (!params.tools.empty()) {
        json tools = json::array();
        for (const protocol::ToolSpec& tool : params.tools)
            tools.push_back({{"name", tool.name},
                             {"description", tool.description},
                             {"input_schema", parameterSchema(tool.parameters)}});
        body["tools"] = std::move(tools);
    }
    return body;
}

} // namespace warren::control
