#include "app/control/Settings.h"

#include "agent_core/config/AgentConfig.h"
#include "app/control/McpServerSettings.h"
#include "app/egress/EgressPolicy.h"
#include "app/providers/ProviderConfig.h"
#include "app/store/Store.h"
#include "app/tasks/TaskRetention.h"
#include "app/tasks/TaskSpec.h"
#include "app/timeline/CommandPrefix.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace warren::control {

namespace {

using nlohmann::json;

constexpr const char* kProvider = "model.provider";
constexpr const char* kModel = "model.name";
constexpr const char* kPresets = "tasks.presets";
constexpr const char* kMaxConcurrent = "tasks.max_concurrent";
constexpr const char* kBackend = "sandbox.backend";
constexpr const char* kAgent = "tasks.agent";
constexpr const char* kImage = "sandbox.image";
constexpr const char* kNetwork = "sandbox.network";
constexpr const char* kRecentWorkspaces = "ui.recent_workspaces";
constexpr const char* kAllowedCommands = "approvals.allowed_commands";
constexpr const char* kAllowedHosts = "network.workspace_hosts";
constexpr const char* kMcpServers = "mcp.servers";
constexpr const char* kIdleSleep = "tasks.idle_sleep_sec";
constexpr const char* kRetentionDays = "tasks.retention_days";
constexpr const char* kWarmContainers = "sandbox.warm_containers";
constexpr std::size_t kConcurrencyLimit = 64;
constexpr std::uint64_t kIdleSleepLimit = 7 * 24 * 3600;

Result<std::vector<std::string>> stringList(const std::string& key, const std::string& text) {
    const json value = json::parse(text, nullptr, false);
    if (!value.is_array() || !std::all_of(value.begin(), value.end(), [](const json& item) { return item.is_string(); }))
        return makeError(ErrorCode::InvalidArgument,
                         "the setting " + key + " is damaged (not a list of names); set it again in Settings");
    return value.get<std::vector<std::string>>();
}

// A whole number's row: nullopt where the store has none.
Result<std::optional<std::uint64_t>> wholeNumber(Store& store, const char* key) {
    auto text = store.setting(key);
    if (!text)
        return text.error();
    if (!*text)
        return std::optional<std::uint64_t>();
    const json value = json::parse(**text, nullptr, false);
    if (!value.is_number_unsigned())
        return makeError(ErrorCode::InvalidArgument,
                         std::string("the setting ") + key + " is damaged; set it again in Settings");
    return std::optional<std::uint64_t>(value.get<std::uint64_t>());
}

// One name and port, as a question's answer keeps it (parseNamedHostPort).
Status checkAllowedHost(const std::string& workspace, const std::string& host) {
    if (!parseNamedHostPort(host))
        return makeError(ErrorCode::InvalidArgument, "host allowed for " + workspace + " \"" + host +
                                                         "\": expected one name and port, such as pypi.org:443");
    return Ok{};
}

} // namespace

Status validateSettings(const Settings& settings) {
    if (!settings.provider.empty()) {
        if (auto config = parseProviderSpec(settings.provider, settings.model); !config)
            return config.error();
    }
    const auto known = agent::presetNames();
    for (const auto& preset : settings.presets) {
        if (std::find(known.begin(), known.end(), preset) == known.end())
            return makeError(ErrorCode::InvalidArgument, "unknown preset \"" + preset + "\"");
    }
    if (settings.maxConcurrent < 1 || settings.maxConcurrent > kConcurrencyLimit)
        return makeError(ErrorCode::InvalidArgument, "tasks at a time must be between 1 and " +
                                                         std::to_string(kConcurrencyLimit));
    if (settings.idleSleepSec > kIdleSleepLimit)
        return makeError(ErrorCode::InvalidArgument, "a waiting task's sandbox may be kept at most a week (" +
                                                         std::to_string(kIdleSleepLimit) + " s); 0 keeps it");
    if (settings.retentionDays > kMaxRetentionDays)
        return makeError(ErrorCode::InvalidArgument, "finished tasks' files may be kept at most " +
                                                         std::to_string(kMaxRetentionDays) +
                                                         " days; 0 keeps them");
    if (settings.warmContainers > Settings::kMaxWarmContainers)
        return makeError(ErrorCode::InvalidArgument,
                         "at most " + std::to_string(Settings::kMaxWarmContainers) +
                             " warm containers are kept per kind of task; 0 keeps none");
    if (auto image = validateImage(settings.image); !image)
        return image;
    if (auto network = validateNetwork(settings.network); !network)
        return network;
    for (const auto& prefix : settings.allowedCommands) {
        if (commandPrefix(prefix) != prefix)
            return makeError(ErrorCode::InvalidArgument,
                             "always allowed command \"" + prefix +
                                 "\": expected a program and at most a subcommand, such as \"git status\"");
    }
    for (const auto& [workspace, hosts] : settings.allowedHosts)
        for (const auto& host : hosts)
            if (auto valid = checkAllowedHost(workspace, host); !valid)
                return valid;
    return checkMcpServerSettings(settings.mcpServers);
}

std::vector<std::string> rememberWorkspace(std::vector<std::string> recent, const std::string& workspace) {
    std::erase(recent, workspace);
    recent.insert(recent.begin(), workspace);
    if (recent.size() > Settings::kMaxRecentWorkspaces)
        recent.resize(Settings::kMaxRecentWorkspaces);
    return recent;
}

Result<Settings> loadSettings(Store& store) {
    Settings settings;
    std::string backend = sandbox::backendName(settings.backend);
    std::string agent(protocol::agentKindName(settings.agent));
    for (const auto& [key, target] : {std::pair{kProvider, &settings.provider}, std::pair{kModel, &settings.model},
                                      std::pair{kBackend, &backend}, std::pair{kImage, &settings.image},
                                      std::pair{kNetwork, &settings.network}, std::pair{kAgent, &agent}}) {
        auto value = store.setting(key);
        if (!value)
            return value.error();
        if (*value)
            *target = **value;
    }
    for (const auto& [key, target] :
         {std::pair{kPresets, &settings.presets}, std::pair{kRecentWorkspaces, &settings.recentWorkspaces},
          std::pair{kAllowedCommands, &settings.allowedCommands}}) {
        auto value = store.setting(key);
        if (!value)
            return value.error();
        if (!*value)
            continue;
        auto list = stringList(key, **value);
        if (!list)
            return list.error();
        *target = std::move(*list);
    }
    auto idle = wholeNumber(store, kIdleSleep);
    if (!idle)
        return idle.error();
    settings.idleSleepSec = idle->value_or(settings.idleSleepSec);
    auto retention = wholeNumber(store, kRetentionDays);
    if (!retention)
        return retention.error();
    settings.retentionDays = retention->value_or(settings.retentionDays);
    auto warm = wholeNumber(store, kWarmContainers);
    if (!warm)
        return warm.error();
    settings.warmContainers = warm->value_or(settings.warmContainers);
    auto concurrency = wholeNumber(store, kMaxConcurrent);
    if (!concurrency)
        return concurrency.error();
    settings.maxConcurrent = static_cast<std::size_t>(concurrency->value_or(settings.maxConcurrent));
    auto hosts = store.setting(kAllowedHosts);
    if (!hosts)
        return hosts.error();
    if (*hosts) {
        const json value = json::parse(**hosts, nullptr, false);
        bool valid = value.is_object();
        for (auto entry = value.begin(); valid && entry != value.end(); ++entry) {
            const std::string& workspace = entry.key();
            valid = entry->is_array() && std::all_of(entry->begin(), entry->end(), [&](const json& host) {
                        return host.is_string() && checkAllowedHost(workspace, host.get<std::string>());
                    });
            if (valid)
                settings.allowedHosts[workspace] = entry->get<std::vector<std::string>>();
        }
        if (!valid)
            return makeError(ErrorCode::InvalidArgument,
                             std::string("the setting ") + kAllowedHosts + " is damaged; set it again in Settings");
    }
    auto servers = store.setting(kMcpServers);
    if (!servers)
        return servers.error();
    if (*servers) {
        json value = json::parse(**servers, nullptr, false);
        if (!checkMcpServerSettings(value))
            return makeError(ErrorCode::InvalidArgument,
                             std::string("the setting ") + kMcpServers + " is damaged; set it again in Settings");
        settings.mcpServers = std::move(value);
    }
    const bool prefixesValid = std::all_of(settings.allowedCommands.begin(), settings.allowedCommands.end(),
                                           [](const std::string& prefix) { return commandPrefix(prefix) == prefix; });
    const auto parsedBackend = sandbox::parseBackend(backend);
    if (parsedBackend)
        settings.backend = *parsedBackend;
    const auto parsedAgent = protocol::parseAgentKind(agent);
    if (parsedAgent)
        settings.agent = *parsedAgent;
    for (const auto& [key, valid] : {std::pair{kBackend, bool(parsedBackend)}, std::pair{kAgent, bool(parsedAgent)},
                                     std::pair{kImage, bool(validateImage(settings.image))},
                                     std::pair{kNetwork, bool(validateNetwork(settings.network))},
                                     std::pair{kAllowedCommands, prefixesValid}}) {
        if (!valid)
            return makeError(ErrorCode::InvalidArgument,
                             std::string("the setting ") + key + " is damaged; set it again in Settings");
    }
    return settings;
}

Status saveSettings(Store& store, const Settings& settings) {
    if (auto valid = validateSettings(settings); !valid)
        return valid;
    const std::pair<const char*, std::string> rows[] = {
        {kProvider, settings.provider},
        {kModel, settings.model},
        {kPresets, json(settings.presets).dump()},
        {kMaxConcurrent, std::to_string(settings.maxConcurrent)},
        {kIdleSleep, std::to_string(settings.idleSleepSec)},
        {kRetentionDays, std::to_string(settings.retentionDays)},
        {kWarmContainers, std::to_string(settings.warmContainers)},
        {kBackend, sandbox::backendName(settings.backend)},
        {kAgent, std::string(protocol::agentKindName(settings.agent))},
        {kImage, settings.image},
        {kNetwork, settings.network},
        {kRecentWorkspaces, json(settings.recentWorkspaces).dump()},
        {kAllowedCommands, json(settings.allowedCommands).dump()},
        {kAllowedHosts, json(settings.allowedHosts).dump()},
        {kMcpServers, settings.mcpServers.dump(-1, ' ', false, json::error_handler_t::replace)},
    };
    for (const auto& [key, value] : rows) {
        if (auto saved = store.setSetting(key, value); !saved)
            return saved;
    }
    return Ok{};
}

} // namespace warren::control
