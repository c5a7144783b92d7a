#include "TaskSpec.h"

#include "AgentConfig.h"

namespace warren::control {

using nlohmann::json;

json TaskSpec::toJson() const {
    return {{"provider", provider},         {"model", model},
            {"presets", presets},           {"overrides", overrides},
            {"network", network},           {"approval", approvalModeName(approval)},
            {"timeout_sec", timeoutSec},    {"token_budget", tokenBudget},
            {"demo", demo}};
}

Result<TaskSpec> TaskSpec::fromJson(const json& value) {
    try {
        TaskSpec spec;
        spec.provider = value.at("provider").get<std::string>();
        spec.model = value.at("model").get<std::string>();
        spec.presets = value.at("presets").get<std::vector<std::string>>();
        spec.overrides = value.at("overrides");
        spec.network = value.at("network").get<std::string>();
        auto mode = parseApprovalMode(value.at("approval").get<std::string>());
        if (!mode)
            return mode.error();
        spec.approval = *mode;
        spec.timeoutSec = value.at("timeout_sec").get<std::uint64_t>();
        spec.tokenBudget = value.at("token_budget").get<std::uint64_t>();
        spec.demo = value.at("demo").get<bool>();
        if (!spec.overrides.is_object())
            return makeError(ErrorCode::InvalidArgument, "task spec: overrides must be an object");
        return spec;
    } catch (const json::exception& error) {
        return makeError(ErrorCode::InvalidArgument,
                         std::string("the stored task spec is unreadable (") + error.what() +
                             "); the database may come from a newer Warren");
    }
}

Status validateSpec(const TaskSpec& spec) {
    if (spec.network != "none" && spec.network != "loopback")
        return makeError(ErrorCode::InvalidArgument,
                         "--network " + spec.network +
                             ": this build runs agents with no network (none) or their own loopback only "
                             "(loopback); host allow-lists are not available yet");
    auto config = agent::resolveConfig(spec.presets, spec.overrides);
    if (!config)
        return config.error();
    return Ok{};
}

} // namespace warren::control
