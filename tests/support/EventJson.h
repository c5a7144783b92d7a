#pragma once
// Reading events as JSON (`warren run --json` lines, warrend's event stream) in tests.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

// What the model read for the tool call callId (its tool_result's output), or a line saying there is none.
inline std::string toolOutput(const std::vector<nlohmann::json>& events, const std::string& callId) {
    for (const auto& event : events)
        if (event.value("type", "") == "tool_result" && event["data"].value("id", "") == callId)
            return event["data"].value("output", "");
    return "(no result for " + callId + ")";
}

} // namespace warren::test
