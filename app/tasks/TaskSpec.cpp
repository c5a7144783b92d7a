#include "app/tasks/TaskSpec.h"

#include "agent_core/config/AgentConfig.h"
#include "app/egress/EgressPolicy.h"

#include <algorithm>

namespace warren::control {

using nlohmann::json;

json TaskSpec::toJson() const {
    return {{"provider", provider},         {"model", model},
            {"presets", presets},           {"overrides", overrides},
            {"network", network},           {"approval", approvalModeName(approval)},
            {"timeout_sec", timeoutSec},    {"token_budget", tokenBudget},
            {"demo", demo},                 {"backend", sandbox::backendName(backend)},
            {"image", image}};
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
        // Tasks stored before the container backend ran under bubblewrap.
        auto backend = sandbox::parseBackend(value.value("backend", std::string("bwrap")));
        if (!backend)
            return makeError(ErrorCode::InvalidArgument, "task spec: " + backend.error().message);
        spec.backend = *backend;
        spec.image = value.value("image", std::string(kDefaultAgentImage));
        if (!spec.overrides.is_object())
            return makeError(ErrorCode::InvalidArgument, "task spec: overrides must be an object");
        return spec;
    } catch (const json::exception& error) {
        return makeError(ErrorCode::InvalidArgument,
                         std::string("the stored task spec is unreadable (") + error.what() +
                             "); the database may come from a newer Warren");
    }
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

Status validateSpec(const TaskSpec& spec) {
    if (auto network = validateNetwork(spec.network); !network)
        return network;
    if (auto image = validateImage(spec.image); !image)
        return image;
    auto config = agent::resolveConfig(spec.presets, spec.overrides);
    if (!config)
        return config.error();
    return Ok{};
}

} // namespace warren::control
