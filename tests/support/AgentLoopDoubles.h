#pragma once
// What the agent-loop tests drive the real loop with, in place of its edges: a sink that keeps every event
// (and can act on each as it comes), and a model that answers from a list and remembers what it was asked.

#include "agent_core/loop/EventLog.h"
#include "agent_core/tools/Cancellation.h"
#include "agent_core/llm/Llm.h"

#include <deque>
#include <functional>
#include <string_view>
#include <vector>

namespace warren::test {

class CollectingSink : public agent::EventSink {
public:
    std::vector<protocol::Event> events;
    std::function<void(const protocol::Event&)> onEvent;
    bool write(const protocol::Event& event) override {
        events.push_back(event);
        if (onEvent)
            onEvent(event);
        return true;
    }
    std::vector<protocol::Event> ofType(std::string_view type) const {
        std::vector<protocol::Event> out;
        for (const auto& event : events)
            if (event.type == type)
                out.push_back(event);
        return out;
    }
};

class ListedLlm : public agent::Llm {
public:
    std::deque<protocol::LlmChatResult> replies;
    std::vector<protocol::LlmChatParams> asked;
    Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params, std::chrono::steady_clock::time_point,
                                         const agent::Cancellation&) override {
        asked.push_back(params);
        if (replies.empty())
            return makeError(ErrorCode::System, "no reply left");
        auto reply = replies.front();
        replies.pop_front();
        return reply;
    }
};

// A reply of the model that calls one tool, with the tokens it says it used.
inline protocol::LlmChatResult calling(const std::string& id, const std::string& tool, nlohmann::json arguments,
                                       protocol::TokenUsage usage = {100, 50, 0}) {
    protocol::LlmChatResult reply;
    reply.toolCalls = {{id, tool, std::move(arguments)}};
    reply.finishReason = "tool_calls";
    reply.tokenUsage = usage;
    return reply;
}

// A reply that ends the task.
inline protocol::LlmChatResult finishing() {
    return calling("call-finish", "finish", {{"summary", "done"}});
}

} // namespace warren::test
