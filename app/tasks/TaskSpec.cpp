#include "app/tasks/TaskSpec.h"

#include "agent_core/config/AgentConfig.h"
#include "app/egress/EgressPolicy.h"
#include "app/secretproxy/HostSecret.h"
#include "common/JsonFields.h"

#include <algorithm>

namespace warren::control {

using nlohmann::json;

json TaskSpec::toJson() const {
    json out = {{"provider", provider},         {"model", model},
            {"presets", presets},           {"overrides", overrides},
            {"network", network},           {"approval", approvalModeName(approval)},
            {"timeout_sec", timeoutSec},    {"token_budget", tokenBudget},
            {"demo", demo},                 {"backend", sandbox::backendName(backend)},
            {"image", image}};
    if (limits)
        out["limits"] = limits->toJson();
    if (attended)
        out["attended"] = true;
    if (agent != protocol::AgentKind::Warren)
        out["agent"] = protocol::agentKindName(agent);
    if (!agentPath.empty())
        out["agent_path"] = agentPath;
    if (!secrets.empty())
        out["secrets"] = secrets;
    if (!resolve.empty())
        out["resolve"] = resolve;
    if (!egressCa.empty())
        out["egress_ca"] = egressCa;
    return out;
}

Result<TaskSpec> TaskSpec::fromText(std::string_view text) {
    return fromJson(json::parse(text, nullptr, false)); // not JSON: fromJson says the spec is unreadable
}

Result<TaskSpec> TaskSpec::fromJson(const json& value) {
    using namespace json_fields;
    const std::string where = "spec";
    TaskSpec spec;
    std::string approval;
    std::string backend = "bwrap"; // tasks stored before the container backend ran under bubblewrap
    std::string agent = "warren";  // tasks stored before other agents ran Warren's
    Error error;
    if (!take(requireObject(value, where), error) ||
        !take(getString(value, "provider", where), spec.provider, error) ||
        !take(getString(value, "model", where), spec.model, error) ||
        !take(getStringArray(value, "presets", where, true), spec.presets, error) ||
        !take(getObject(value, "overrides", where), spec.overrides, error) ||
        !take(getString(value, "network", where), spec.network, error) ||
        !take(getString(value, "approval", where), approval, error) ||
        !take(getUint(value, "timeout_sec", where), spec.timeoutSec, error) ||
        !take(getUint(value, "token_budget", where), spec.tokenBudget, error) ||
        !take(getBool(value, "demo", where), spec.demo, error) ||
        !takeIfPresent(getOptionalString(value, "backend", where), backend, error) ||
        !takeIfPresent(getOptionalString(value, "image", where), spec.image, error) ||
        !takeIfPresent(getOptionalString(value, "agent", where), agent, error) ||
        !takeIfPresent(getOptionalString(value, "agent_path", where), spec.agentPath, error) ||
        !take(getStringArray(value, "secrets", where, false), spec.secrets, error) ||
        !take(getStringArray(value, "resolve", where, false), spec.resolve, error) ||
        !takeIfPresent(getOptionalString(value, "egress_ca", where), spec.egressCa, error) ||
        (value.contains("attended") && !take(getBool(value, "attended", where), spec.attended, error)))
        return makeError(ErrorCode::InvalidArgument,
                         "the stored task spec is unreadable (" + error.message +
                             "); the database may come from a newer Warren");
    auto mode = parseApprovalMode(approval);
    if (!mode)
        return mode.error();
    spec.approval = *mode;
    auto parsedBackend = sandbox::parseBackend(backend);
    if (!parsedBackend)
        return makeError(ErrorCode::InvalidArgument, "task spec: " + parsedBackend.error().message);
    spec.backend = *parsedBackend;
    auto parsedAgent = protocol::parseAgentKind(agent);
    if (!parsedAgent)
        return makeError(ErrorCode::InvalidArgument, "task spec: " + parsedAgent.error().message);
    spec.agent = *parsedAgent;
    if (value.contains("limits")) {
        auto read = protocol::LimitsAppliedData::fromJson(value.at("limits"));
        if (!read)
            return makeError(ErrorCode::InvalidArgument, "task spec: " + read.error().message);
        spec.limits = std::move(*read);
    }
    return spec;
}

Status validateImage(const std::string& image) {
    // The name goes on the engine's command line after its options: one that starts with '-' or holds
    // spaces or control characters would be read as something else.
    const bool printable = std::all_of(image.begin(), image.end(), [](char c) { return c > ' ' && c != 0x7f; });
    if (image.empty() || image.front() == '-' || !printable || image.size() > 255)
        return makeError(ErrorCode::InvalidArgument,
                         "image \"" + image + "\": expected an image name such as " + kDefaultAgentImage +
                             " or localhost/NAME:TAG");
    return Ok{};
}

Status validateNetwork(const std::string& network) {
    if (auto parsed = parseTaskNetwork(network); !parsed)
        return parsed.error();
    return Ok{};
}

Status validateEgressOptions(const TaskSpec& spec) {
    for (std::size_t i = 0; i < spec.secrets.size(); ++i) {
        if (auto valid = validateSecretName(spec.secrets[i]); !valid)
            return makeError(ErrorCode::InvalidArgument, "--secret " + spec.secrets[i] + ": " + valid.error().message);
        if (std::find(spec.secrets.begin(), spec.secrets.begin() + std::ptrdiff_t(i), spec.secrets[i]) !=
            spec.secrets.begin() + std::ptrdiff_t(i))
            return makeError(ErrorCode::InvalidArgument, "--secret " + spec.secrets[i] + " is named twice");
    }
    for (const std::string& entry : spec.resolve)
        if (auto pinned = parsePinnedAddress(entry); !pinned)
            return pinned.error();
    return Ok{};
}

Status validateSpec(const TaskSpec& spec) {
    if (auto network = validateNetwork(spec.network); !network)
        return network;
    if (auto egress = validateEgressOptions(spec); !egress)
        return egress;
    if (auto image = validateImage(spec.image); !image)
        return image;
    auto config = agent::resolveConfig(spec.presets, spec.overrides);
    if (!config)
        return config.error();
    return cliHonoursConfig(spec.agent, *config);
}

Status cliHonoursConfig(protocol::AgentKind agent, const agent::AgentConfig& config) {
    // A CLI's question goes with its process, so its run keeps the sandbox while it waits (TaskRunner).
    if (agent != protocol::AgentKind::Warren && config.idleSleepSec > 0)
        return makeError(ErrorCode::InvalidArgument,
                         std::string(protocol::agentKindName(agent)) +
                             " does not sleep while it waits for an answer (its question would go with its "
                             "process), and this task's settings ask for it (idle_sleep_sec: " +
                             std::to_string(config.idleSleepSec) +
                             "): leave idle_sleep_sec unset, or run Warren's own agent (--agent warren)");
    // Both CLIs' permission asks reach Warren's approvals (agent_core/clis/ClaudePermissions.h,
    // CodexPermissions.h).
    return Ok{};
}

} // namespace warren::control
