#pragma once
// The events of a long finished task for the paging tests: steps of seven events (the step, the model's
// reply with its tokens, a shell call, two output chunks, its result, a file change), so that a page
// boundary falls inside a call, between a call and its result, or on a step, depending on where it is.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

inline std::vector<nlohmann::json> longTaskEvents(std::uint64_t total) {
    using nlohmann::json;
    std::vector<json> events;
    for (std::uint64_t seq = 1; seq <= total; ++seq) {
        const std::uint64_t step = (seq - 1) / 7 + 1;
        const std::string call = "call_" + std::to_string(step);
        json event{{"seq", seq}, {"ts", "2026-11-29T10:00:00.000Z"}, {"step", step}};
        if (seq == total) {
            event["type"] = "task_finished";
            event["data"] = {{"reason", "finished"}, {"summary", "done"}};
        } else {
            switch ((seq - 1) % 7) {
            case 0:
                event["type"] = "step_started";
                event["data"] = json::object();
                break;
            case 1:
                event["type"] = "model_response";
                event["data"] = {{"content", "step " + std::to_string(step)}, {"tool_calls", json::array()}};
                event["token_usage"] = {{"input", 100 + step}, {"output", 10}};
                break;
            case 2:
                event["type"] = "tool_call";
                event["tool"] = "shell";
                event["data"] = {{"id", call}, {"arguments", {{"command", "make " + std::to_string(step)}}}};
                break;
            case 3:
            case 4:
                event["type"] = "tool_output";
                event["tool"] = "shell";
                event["data"] = {{"id", call}, {"stream", "stdout"}, {"text", "line " + std::to_string(seq) + "\n"}};
                break;
            case 5:
                event["type"] = "tool_result";
                event["tool"] = "shell";
                event["data"] = {{"id", call}, {"exit_code", 0}, {"output", "ok"}};
                break;
            default:
                event["type"] = "file_changed";
                event["data"] = {{"path", "f" + std::to_string(step % 13) + ".c"},
                                 {"change", "modified"},
                                 {"diff", "-a\n+b\n"},
                                 {"added", 1},
                                 {"removed", 1}};
            }
        }
        events.push_back(event);
    }
    return events;
}

} // namespace warren::test
