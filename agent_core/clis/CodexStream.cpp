#include "agent_core/clis/CodexStream.h"

#include "common/JsonFields.h"

namespace warren::agent {

using nlohmann::json;
using namespace protocol;
using json_fields::memberString;

namespace {

CliEvent problem(const std::string& message, bool fatal = false) {
    return {ErrorData{message, fatal}, std::nullopt};
}

bool isToolItem(const std::string& type) {
    return type == "command_execution" || type == "file_change" || type == "mcp_tool_call" ||
           type == "web_search";
}

// The tool_call's arguments: what the item says it will do.
json argumentsOf(const json& item, const std::string& type) {
    if (type == "command_execution")
        return {{"command", memberString(item, "command")}};
    if (type == "file_change")
        return {{"changes",
                 item.contains("changes") && item["changes"].is_array() ? item["changes"] : json::array()}};
    if (type == "mcp_tool_call")
        return {{"server", memberString(item, "server")},
                {"tool", memberString(item, "tool")},
                {"arguments", item.contains("arguments") ? item["arguments"] : json::object()}};
    return {{"query", memberString(item, "query")}};
}

// What a completed tool item returned, as the model read it.
ToolResultData resultOf(const json& item, const std::string& type) {
    ToolResultData result;
    result.id = memberString(item, "id");
    const std::string status = memberString(item, "status");
    std::string output;
    if (type == "command_execution") {
        output = memberString(item, "aggregated_output");
        if (const auto code = item.find("exit_code"); code != item.end() && code->is_number_integer())
            result.exitCode = code->get<std::int64_t>();
    } else if (type == "file_change") {
        if (const auto changes = item.find("changes"); changes != item.end() && changes->is_array())
            for (const auto& change : *changes)
                if (change.is_object())
                    output += memberString(change, "kind") + " " + memberString(change, "path") + "\n";
        result.exitCode = status == "completed" ? 0 : 1;
    } else if (type == "mcp_tool_call") {
        if (const auto error = item.find("error"); error != item.end() && !error->is_null())
            output = error->is_object() ? memberString(*error, "message") : error->dump();
        else if (const auto value = item.find("result"); value != item.end() && !value->is_null())
            output = value->dump();
        result.exitCode = status == "completed" ? 0 : 1;
    } else {
        result.exitCode = 0;
    }
    result.denied = status == "declined";
    result.output = boundedText(output, kCliToolOutputBytes, &result.truncated);
    return result;
}

TokenUsage usageOf(const json& usage) {
    TokenUsage out;
    if (!usage.is_object())
        return out;
    out.input = json_fields::memberUint(usage, "input_tokens");
    out.output = json_fields::memberUint(usage, "output_tokens");
    out.reasoning = json_fields::memberUint(usage, "reasoning_output_tokens");
    return out;
}

} // namespace

CliLine CodexStream::translate(std::string_view line) {
    CliLine out;
    auto parsed = json_fields::parseJson(line);
    if (!parsed || !parsed->is_object()) {
        out.events.push_back(problem("Codex wrote a line that is not a JSON object: " +
                                     boundedText(std::string(line), kCliQuotedLineBytes)));
        return out;
    }
    const json& object = *parsed;
    const std::string type = memberString(object, "type");
    if (type == "thread.started") {
        const std::string thread = memberString(object, "thread_id");
        if (!thread.empty())
            out.sessionId = thread;
        out.events.push_back({LogData{LogLevel::Info, "Codex session " + thread}, std::nullopt});
    } else if (type == "turn.started") {
        out.events.push_back({StepStartedData{}, std::nullopt});
        m_stepOpen = true;
    } else if ((type == "item.started" || type == "item.completed" || type == "item.updated") &&
               object.contains("item") && object["item"].is_object()) {
        onItem(object["item"], type == "item.completed", out);
    } else if (type == "turn.completed") {
        out.end = CliEnd{FinishReason::Finished, m_lastMessage,
                         object.contains("usage") ? std::optional(usageOf(object["usage"])) : std::nullopt};
    } else if (type == "turn.failed") {
        std::string message;
        if (const auto error = object.find("error"); error != object.end() && error->is_object())
            message = memberString(*error, "message");
        if (message.empty())
            message = m_lastError.empty() ? "the turn failed" : m_lastError;
        const std::string summary = "Codex ended with an error: " + boundedText(message, kCliToolOutputBytes);
        out.events.push_back(problem(summary, true));
        out.end = CliEnd{FinishReason::Failed, summary, std::nullopt};
    } else if (type == "error") {
        m_lastError = memberString(object, "message");
        out.events.push_back(problem("Codex: " + boundedText(m_lastError, kCliToolOutputBytes)));
    } else if (type.empty()) {
        out.events.push_back(problem("Codex wrote an object without a type: " +
                                     boundedText(std::string(line), kCliQuotedLineBytes)));
    } else {
        out.events.push_back({LogData{LogLevel::Debug, "Codex: " + type}, std::nullopt});
    }
    return out;
}

void CodexStream::startCall(const std::string& id, const std::string& type, json arguments, CliLine& out) {
    // Each call in a step of its own: the control plane's snapshot at the next step_started holds its
    // changes.
    if (!m_stepOpen)
        out.events.push_back({StepStartedData{}, std::nullopt});
    m_stepOpen = false;
    m_started.insert(id);
    out.events.push_back({ToolCallData{id, std::move(arguments)}, type});
}

void CodexStream::onItem(const json& item, bool completed, CliLine& out) {
    const std::string type = memberString(item, "type");
    const std::string id = memberString(item, "id");
    if (isToolItem(type)) {
        if (!m_started.contains(id))
            startCall(id, type, argumentsOf(item, type), out);
        if (completed)
            out.events.push_back({resultOf(item, type), type});
        return;
    }
    if (type == "todo_list") { // the whole plan each time it changes
        PlanUpdatedData plan;
        if (const auto items = item.find("items"); items != item.end() && items->is_array())
            for (const auto& step : *items)
                if (step.is_object())
                    plan.steps.push_back({memberString(step, "text"), json_fields::memberBool(step, "completed")
                                                                          ? PlanStatus::Completed
                                                                          : PlanStatus::Pending});
        out.events.push_back({std::move(plan), std::nullopt});
        return;
    }
    if (!completed)
        return; // a message is taken whole when it completes
    if (type == "agent_message") {
        m_lastMessage = memberString(item, "text");
        out.events.push_back({ModelResponseData{m_lastMessage, {}, "", ""}, std::nullopt});
    } else if (type == "reasoning") {
        out.events.push_back({ModelResponseData{"", {}, "", memberString(item, "text")}, std::nullopt});
    } else if (type == "error") {
        m_lastError = memberString(item, "message");
        out.events.push_back(problem("Codex: " + boundedText(m_lastError, kCliToolOutputBytes)));
    } else {
        out.events.push_back({LogData{LogLevel::Debug, "Codex: item " + type}, std::nullopt});
    }
}

} // namespace warren::agent
