#pragma once
// One tool call the model asked for. The id pairs the call with its result in the conversation.

#include <nlohmann/json.hpp>
#include <string>

namespace warren::protocol {

struct ToolCall {
    std::string id;
    std::string name;
    nlohmann::json arguments = nlohmann::json::object(); // always an object
    friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

} // namespace warren::protocol
