#include "app/wire/TaskRequest.h"

#include "agent_core/protocol/Script.h"
#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;
using namespace json_fields;

namespace {

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
    if (auto parsed = protocol::parseScript(it->dump(), "script"); !parsed)
        return parsed.error();
    request.script = *it;
    return Ok{};
}

// newTaskId's form: "t-" and 12 lowercase hex digits.
bool isTaskId(const std::string& id) {
    return id.size() == 14 && id.starts_with("t-") &&
           id.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
}

Status readMoved(const json& body, TaskRequest& request) {
    const auto it = body.find("moved");
    if (it == body.end())
        return Ok{};
    if (auto object = requireObject(*it, "moved"); !object)
        return object.error();
    if (auto keys = checkKeys(*it, {"from", "status", "history"}, "moved", ListKnown::Yes); !keys)
        return keys.error();
    MoveOrigin origin;
    std::string status;
    Error error;
    if (!take(getString(*it, "from", "moved"), origin.from, error) ||
        !take(getString(*it, "status", "moved"), status, error) ||
        !take(getString(*it, "history", "moved"), origin.history, error))
        return error;
    if (!isTaskId(origin.from))
        return refuse("moved.from: must be a task id, t- and 12 hex digits");
    const auto parsed = control::taskStatusFromName(status);
    if (!parsed || !control::canMove(*parsed))
        return refuse("moved.status: must be paused, interrupted, waiting or sleeping, got \"" + status +
                      "\"");
    origin.status = *parsed;
    if (origin.history.empty())
        return refuse(
            "moved.history: is empty; POST the task's events and checkpoint to /v1/uploads and pass its id");
    if (request.agent != protocol::AgentKind::Warren)
        return refuse("moved: only a task of Warren's own agent moves, not one of " +
                      std::string(protocol::agentKindName(request.agent)));
    request.moved = std::move(origin);
    return Ok{};
}

Status readSettings(const json& body, TaskRequest& request) {
    const auto settings = body.find("settings");
    if (settings == body.end())
        return Ok{};
    if (!settings->is_object())
        return refuse("settings: must be an object of agent settings, got " + describeJson(*settings));
    // Lists and objects too (approval_tools, mcp_servers: `warren run --mcp-config` and the window's MCP servers);
    // what each key takes is the agent's settings table's to judge when the spec is checked.
    for (const auto& [key, value] : settings->items())
        if (value.is_null() || value.is_binary())
            return refuse("settings." + key + ": must be a string, a number, a boolean, a list or an object, got " +
                          describeJson(value));
    request.settings = *settings;
    return Ok{};
}

} // namespace

json TaskRequest::toJson() const {
    json body = {{"prompt", prompt}, {"workspace", workspace}, {"network", network}};
    if (script)
        body["script"] = *script;
    if (!provider.empty())
        body["provider"] = provider;
    if (!model.empty())
        body["model"] = model;
    if (!presets.empty())
        body["presets"] = presets;
    if (settings.is_object() && !settings.empty())
        body["settings"] = settings;
    if (limits.is_object() && !limits.empty())
        body["limits"] = limits;
    if (tokenBudget > 0)
        body["token_budget"] = tokenBudget;
    if (queue)
        body["queue"] = true;
    if (attended)
        body["attended"] = true;
    if (agent != protocol::AgentKind::Warren)
        body["agent"] = protocol::agentKindName(agent);
    if (!secrets.empty())
        body["secrets"] = secrets;
    if (moved)
        body["moved"] = {{"from", moved->from},
                         {"status", control::taskStatusName(moved->status)},
                         {"history", moved->history}};
    return body;
}

Result<TaskRequest> TaskRequest::fromJson(const json& body) {
    if (auto object = requireObject(body, "the request body"); !object)
        return object.error();
    if (auto keys =
            checkKeys(body,
                      {"prompt", "workspace", "provider", "model", "script", "presets", "settings", "network",
                       "limits", "token_budget", "queue", "attended", "agent", "secrets", "moved"},
                      "the request body", ListKnown::Yes);
        !keys)
        return keys.error();
    TaskRequest request;
    Error error;
    std::string agent = "warren";
    if (!take(getString(body, "prompt", ""), request.prompt, error) ||
        !take(getString(body, "workspace", ""), request.workspace, error) ||
        !takeIfPresent(getOptionalString(body, "provider", ""), request.provider, error) ||
        !takeIfPresent(getOptionalString(body, "model", ""), request.model, error) ||
        !take(getStringArray(body, "presets", "", false), request.presets, error) ||
        !takeIfPresent(getOptionalString(body, "network", ""), request.network, error) ||
        !takeIfPresent(getOptionalUint(body, "token_budget", ""), request.tokenBudget, error) ||
        !takeIfPresent(getOptionalBool(body, "queue", ""), request.queue, error) ||
        !takeIfPresent(getOptionalBool(body, "attended", ""), request.attended, error) ||
        !takeIfPresent(getOptionalString(body, "agent", ""), agent, error) ||
        !take(getStringArray(body, "secrets", "", false), request.secrets, error))
        return error;
    auto parsedAgent = protocol::parseAgentKind(agent);
    if (!parsedAgent)
        return refuse("agent: " + parsedAgent.error().message);
    request.agent = *parsedAgent;
    if (request.prompt.empty())
        return refuse("prompt: is empty; say what the agent should do");
    if (request.prompt.size() > kMaxPromptBytes)
        return refuse("prompt: longer than " + std::to_string(kMaxPromptBytes) + " bytes");
    if (request.workspace.empty())
        return refuse("workspace: is empty; POST the workspace's tar to /v1/uploads and pass its id");
    if (request.provider.starts_with("scripted"))
        return refuse("provider: a scripted model comes inline, as script");
    if (auto script = readScript(body, request); !script)
        return script.error();
    if (auto settings = readSettings(body, request); !settings)
        return settings.error();
    if (auto moved = readMoved(body, request); !moved)
        return moved.error();
    if (const auto limits = body.find("limits"); limits != body.end()) {
        if (auto object = requireObject(*limits, "limits"); !object)
            return object.error();
        request.limits = *limits;
    }
    return request;
}

} // namespace warren::wire
