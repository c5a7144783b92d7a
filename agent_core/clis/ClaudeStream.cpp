#include "agent_core/clis/ClaudeStream.h"

#include "agent_core/clis/ClaudePermissions.h"

#include "common/JsonFields.h"

namespace warren::agent {

using nlohmann::json;
using namespace protocol;
using json_fields::memberString;

namespace {

std::string quoted(std::string_view line) {
    return boundedText(std::string(line), kCliQuotedLineBytes);
}

CliEvent problem(const std::string& message) {
    return {ErrorData{message, false}, std::nullopt};
}

// A tool_result's content: a string, or text blocks (an image block is named, not carried).
std::string resultText(const json& content) {
    if (content.is_string())
        return content.get<std::string>();
    std::string text;
    if (!content.is_array())
        return text;
    for (const auto& block : content) {
        if (!block.is_object())
            continue;
        const std::string type = memberString(block, "type");
        if (type == "text")
            text += (text.empty() ? "" : "\n") + memberString(block, "text");
        else if (!type.empty())
            text += (text.empty() ? "[" : "\n[") + type + "]";
    }
    return text;
}

// Claude Code's Bash puts a failed command's status first ("Exit code 2\n..."); other tools only say
// is_error.
std::optional<std::int64_t> exitCodeOf(const std::string& text, bool isError) {
    if (!isError)
        return 0;
    constexpr std::string_view kPrefix = "Exit code ";
    if (text.starts_with(kPrefix)) {
        std::int64_t code = 0;
        std::size_t i = kPrefix.size();
        for (; i < text.size() && i < kPrefix.size() + 4 && text[i] >= '0' && text[i] <= '9'; ++i)
            code = code * 10 + (text[i] - '0');
        if (i > kPrefix.size())
            return code;
    }
    return 1;
}

TokenUsage usageOf(const json& usage) {
    TokenUsage out;
    if (!usage.is_object())
        return out;
    // Cached input is input all the same: what the model read.
    for (const char* key : {"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"})
        out.input += json_fields::memberUint(usage, key);
    out.output = json_fields::memberUint(usage, "output_tokens");
    return out;
}

} // namespace

CliLine ClaudeStream::translate(std::string_view line) {
    CliLine out;
    auto parsed = json_fields::parseJson(line);
    if (!parsed || !parsed->is_object()) {
        out.events.push_back(problem("Claude Code wrote a line that is not a JSON object: " + quoted(line)));
        return out;
    }
    const json& object = *parsed;
    const std::string type = memberString(object, "type");
    if (type == "system") {
        const std::string subtype = memberString(object, "subtype");
        if (subtype == "init") {
            const std::string session = memberString(object, "session_id");
            if (!session.empty())
                out.sessionId = session;
            out.events.push_back({LogData{LogLevel::Info, "Claude Code session " + session + ", model " +
                                                              memberString(object, "model")},
                                  std::nullopt});
        } else {
            out.events.push_back({LogData{LogLevel::Debug, "Claude Code: system " + subtype}, std::nullopt});
        }
    } else if (type == "assistant" && object.contains("message") && object["message"].is_object()) {
        onAssistant(object["message"], out);
    } else if (type == "user" && object.contains("message") && object["message"].is_object()) {
        onUser(object["message"], out);
    } else if (type == "result") {
        onResult(object, out);
    } else if (type == "control_request") {
        out.permission = claudePermissionAskOf(object);
        if (!out.permission) {
            const std::string subtype = object.contains("request") ? memberString(object["request"], "subtype") : "";
            out.events.push_back({LogData{LogLevel::Debug, "Claude Code asked " + subtype + "; refused"}, std::nullopt});
            out.reply = claudeControlRefusal(memberString(object, "request_id"), subtype);
        }
    } else if (type.empty()) {
        out.events.push_back(problem("Claude Code wrote an object without a type: " + quoted(line)));
    } else {
        out.events.push_back({LogData{LogLevel::Debug, "Claude Code: " + type}, std::nullopt});
    }
    return out;
}

void ClaudeStream::onAssistant(const json& message, CliLine& out) {
    const std::string id = memberString(message, "id");
    // Claude Code writes each content block of a reply as a line of its own, all with the reply's id.
    if (id.empty() || id != m_messageId)
        out.events.push_back({StepStartedData{}, std::nullopt});
    m_messageId = id;
    const auto content = message.find("content");
    if (content == message.end() || !content->is_array())
        return;
    for (const auto& block : *content) {
        if (!block.is_object())
            continue;
        const std::string type = memberString(block, "type");
        if (type == "text") {
            out.events.push_back({ModelResponseData{memberString(block, "text"), {}, "", ""}, std::nullopt});
        } else if (type == "thinking") {
            out.events.push_back(
                {ModelResponseData{"", {}, "", memberString(block, "thinking")}, std::nullopt});
        } else if (type == "tool_use") {
            const std::string callId = memberString(block, "id");
            const std::string name = memberString(block, "name");
            json input =
                block.contains("input") && block["input"].is_object() ? block["input"] : json::object();
            m_tools[callId] = name;
            out.events.push_back({ToolCallData{callId, std::move(input)}, name});
        }
    }
}

void ClaudeStream::onUser(const json& message, CliLine& out) {
    const auto content = message.find("content");
    if (content == message.end() || !content->is_array())
        return;
    for (const auto& block : *content) {
        if (!block.is_object() || memberString(block, "type") != "tool_result")
            continue;
        const std::string callId = memberString(block, "tool_use_id");
        const std::string text = resultText(block.contains("content") ? block["content"] : json());
        const bool isError = json_fields::memberBool(block, "is_error");
        ToolResultData result;
        result.id = callId;
        result.output = boundedText(text, kCliToolOutputBytes, &result.truncated);
        result.exitCode = exitCodeOf(text, isError);
        const auto tool = m_tools.find(callId);
        out.events.push_back(
            {std::move(result), tool != m_tools.end() ? std::optional(tool->second) : std::nullopt});
    }
}

void ClaudeStream::onResult(const json& object, CliLine& out) {
    CliEnd end;
    const bool isError =
        json_fields::memberBool(object, "is_error") || memberString(object, "subtype") != "success";
    std::string summary = memberString(object, "result");
    if (isError) {
        std::string why = memberString(object, "subtype");
        if (const auto errors = object.find("errors"); errors != object.end() && errors->is_array())
            for (const auto& error : *errors)
                if (error.is_string())
                    why += "; " + error.get<std::string>();
        if (!summary.empty())
            why += "; " + summary;
        summary = "Claude Code ended with an error: " + why;
        out.events.push_back({ErrorData{boundedText(summary, kCliToolOutputBytes), true}, std::nullopt});
    }
    end.reason = isError ? FinishReason::Failed : FinishReason::Finished;
    end.summary = boundedText(summary, kCliToolOutputBytes);
    if (object.contains("usage"))
        end.usage = usageOf(object["usage"]);
    const std::string session = memberString(object, "session_id");
    if (!session.empty())
        out.sessionId = session;
    out.end = std::move(end);
}

} // namespace warren::agent
