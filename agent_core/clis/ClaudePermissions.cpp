#include "agent_core/clis/ClaudePermissions.h"

#include "common/JsonFields.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace warren::agent {

using json_fields::memberString;
using nlohmann::json;

namespace {

// Claude Code's tools and Warren's tool each one is. A tool not here has no counterpart.
constexpr std::array<std::pair<const char*, const char*>, 14> kClaudeTools{{
    {"Bash", "shell"},
    {"BashOutput", "shell"},
    {"KillShell", "shell"},
    {"KillBash", "shell"},
    {"Write", "write_file"},
    {"Edit", "edit_file"},
    {"MultiEdit", "edit_file"},
    {"NotebookEdit", "edit_file"},
    {"Read", "read_file"},
    {"NotebookRead", "read_file"},
    {"Glob", "list_files"},
    {"LS", "list_files"},
    {"Grep", "search"},
    {"TodoWrite", "update_plan"},
}};

// Allowed without asking when no approval is asked for: the tools of kClaudeTools and these, which Warren's
// sandbox and network policy govern (a sub-agent's calls are each asked for in turn).
constexpr std::array<const char*, 3> kUngatedTools{"WebFetch", "WebSearch", "Task"};

} // namespace

std::optional<std::string> warrenToolOf(const std::string& claudeTool) {
    for (const auto& [claude, warren] : kClaudeTools)
        if (claudeTool == claude)
            return std::string(warren);
    return std::nullopt;
}

WarrenCall warrenCallOf(const std::string& claudeTool, const json& input) {
    WarrenCall call{warrenToolOf(claudeTool).value_or(claudeTool), input.is_object() ? input : json::object()};
    // Claude Code names files by absolute path; Warren's calls name the workspace's relative to it.
    for (const char* key : {"file_path", "notebook_path"})
        if (call.arguments.contains(key) && call.arguments[key].is_string())
            call.arguments["path"] = workspaceRelative(call.arguments[key].get<std::string>());
    return call;
}

bool claudeCallNeedsApproval(const std::string& claudeTool, const std::vector<std::string>& approvalTools) {
    if (approvalTools.empty())
        return false;
    const auto warren = warrenToolOf(claudeTool);
    return !warren || std::find(approvalTools.begin(), approvalTools.end(), *warren) != approvalTools.end();
}

std::string claudeAllowedTools(const std::vector<std::string>& approvalTools) {
    std::string allowed;
    const auto add = [&](const char* tool) {
        if (!claudeCallNeedsApproval(tool, approvalTools))
            allowed += (allowed.empty() ? "" : " ") + std::string(tool);
    };
    for (const auto& [claude, warren] : kClaudeTools)
        add(claude);
    for (const char* tool : kUngatedTools)
        add(tool);
    return allowed;
}

std::optional<CliPermissionAsk> claudePermissionAskOf(const json& object) {
    if (memberString(object, "type") != "control_request" || !object.contains("request"))
        return std::nullopt;
    const json& request = object["request"];
    if (memberString(request, "subtype") != "can_use_tool")
        return std::nullopt;
    CliPermissionAsk ask;
    ask.requestId = memberString(object, "request_id");
    if (ask.requestId.empty())
        return std::nullopt;
    ask.tool = memberString(request, "tool_name");
    if (request.contains("input") && request["input"].is_object())
        ask.input = request["input"];
    ask.callId = memberString(request, "tool_use_id");
    return ask;
}

std::string claudePermissionAnswer(const CliPermissionAsk& ask, bool allowed, const std::string& message) {
    const json decision = allowed ? json{{"behavior", "allow"}, {"updatedInput", ask.input}}
                                  : json{{"behavior", "deny"}, {"message", message}};
    const json line{
        {"type", "control_response"},
        {"response", {{"subtype", "success"}, {"request_id", ask.requestId}, {"response", decision}}}};
    return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string claudeControlRefusal(const std::string& requestId, const std::string& subtype) {
    const json line{{"type", "control_response"},
                    {"response",
                     {{"subtype", "error"},
                      {"request_id", requestId},
                      {"error", "Warren does not serve the control request " + subtype}}}};
    return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string claudeUserMessage(const std::string& text) {
    const json line{{"type", "user"}, {"message", {{"role", "user"}, {"content", text}}}};
    return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace warren::agent
