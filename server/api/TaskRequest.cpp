#include "server/api/TaskRequest.h"

#include "agent_core/protocol/Script.h"
#include "common/JsonFields.h"

namespace warren::server {

using nlohmann::json;
using namespace json_fields;

namespace {

constexpr std::size_t kMaxPromptBytes = 256 * 1024;

Error refuse(const std::string& message) {
    return Error{ErrorCode::InvalidArgument, message};
}

Status readScript(const json& body, TaskRequest& request) {
    const auto it = body.find("script");
    if (it == body.end())
        return Ok{};
    if (!it->is_object())
        return refuse("script: must be an object {\"turns\": [...]}, got " + describeJson(*it));
    if (!request.provider.empty())
        return refuse("script: a task has a script or a provider, not both");
    const std::string text = it->dump();
    if (auto parsed = protocol::parseScript(text, "script"); !parsed)
        return parsed.error();
    request.script = text;
    return Ok{};
}

} // namespace

Result<TaskRequest> parseTaskRequest(const json& body) {
    if (auto object = requireObject(body, "the request body"); !object)
        return object.error();
    if (auto keys = checkKeys(body,
                              {"prompt", "workspace", "provider", "model", "script", "presets", "settings",
                               "network", "limits", "token_budget", "queue", "attended"},
                              "the request body", ListKnown::Yes);
        !keys)
        return keys.error();
    TaskRequest request;
    Error error;
    std::optional<std::string> provider, model, network;
    std::optional<std::uint64_t> budget;
    std::optional<bool> queue, attended;
    if (!take(getString(body, "prompt", ""), request.prompt, error) ||
        !take(getString(body, "workspace", ""), request.workspace, error) ||
        !take(getOptionalString(body, "provider", ""), provider, error) ||
        !take(getOptionalString(body, "model", ""), model, error) ||
        !take(getStringArray(body, "presets", "", false), request.presets, error) ||
        !take(getOptionalString(body, "network", ""), network, error) ||
        !take(getOptionalUint(body, "token_budget", ""), budget, error) ||
        !take(getOptionalBool(body, "queue", ""), queue, error) ||
        !take(getOptionalBool(body, "attended", ""), attended, error))
        return error;
    if (request.prompt.empty())
        return refuse("prompt: is empty; say what the agent should do");
    if (request.prompt.size() > kMaxPromptBytes)
        return refuse("prompt: longer than " + std::to_string(kMaxPromptBytes) + " bytes");
    if (request.workspace.empty())
        return refuse("workspace: is empty; POST the workspace's tar to /v1/uploads and pass its id");
    request.provider = provider.value_or("");
    if (request.provider.starts_with("scripted"))
        return refuse("provider: a scripted model comes inline, as script");
    request.model = model.value_or("");
    request.network = network.value_or("none");
    request.tokenBudget = budget.value_or(0);
    request.queue = queue.value_or(false);
    request.attended = attended.value_or(false);
    if (auto script = readScript(body, request); !script)
        return script.error();
    if (const auto settings = body.find("settings"); settings != body.end()) {
        if (!settings->is_object())
            return refuse("settings: must be an object of agent settings, got " + describeJson(*settings));
        for (const auto& [key, value] : settings->items())
            if (!value.is_string() && !value.is_number() && !value.is_boolean())
                return refuse("settings." + key + ": must be a string, a number or a boolean, got " +
                              describeJson(value));
        request.settings = *settings;
    }
    if (const auto limits = body.find("limits"); limits != body.end()) {
        auto read = accounts::limitsFromJson(*limits, accounts::LimitsScope::Request, "limits");
        if (!read)
            return read.error();
        request.limits = *read;
    }
    return request;
}

} // namespace warren::server
