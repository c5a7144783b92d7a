#pragma once
// One tool call the model asked for. The id pairs the call with its result in the conversation.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::protocol {

struct ToolCall {
    std::string id;
    std::string name;
    nlohmann::json arguments = nlohmann::json::object(); // always an object
    // The arguments as the model wrote them when they were not a JSON object (then arguments is {}): the
    // call is not run, the model is told what was wrong with them.
    std::optional<std::string> invalidArguments = std::nullopt;
    friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

} // namespace warren::protocol
