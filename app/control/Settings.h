#pragma once
// What the user set once and every task starts from: the model, the default presets, the agent, the sandbox
// (backend, image and network policy), how many tasks run at a time, the user's MCP servers, the workspaces
// used recently. Stored in the settings table of
// warren.db, one row per key; the provider's key is never among them (it lives in the SecretStore under the
// provider's key name).

#include "app/tasks/TaskSpec.h"
#include "common/Result.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::control {

class Store;

struct Settings {
    std::string provider; // a --provider value ("openai", "openai-compatible:URL", ...); empty: no model, the demo
    std::string model;
    std::vector<std::string> presets; // applied to new tasks, in order
    std::size_t maxConcurrent = 4;
    // How long a task of Warren's agent that only waits for the user's answer keeps its sandbox before it
    // sleeps (the face's idle time, RunnerEnvironment::idleSleep; a task's own idle_sleep_sec may shorten it);
    // 0: never, the default on this computer.
    std::uint64_t idleSleepSec = 0;
    // How many days a finished task keeps its checkpoints, snapshots and artifacts (TaskRetention.h); its
    // record and events stay. 0: kept for ever, the default on this computer. The workspace is the user's.
    std::uint64_t retentionDays = 0;
    sandbox::Backend backend = sandbox::Backend::Bwrap; // stored as its backendName() (TaskSpec::backend)
    // How many warm podman containers of a task's shape the window keeps ready for the next task of that
    // shape (RunnerEnvironment::warmSandboxes; only where Warren runs as root with rootful podman). 0: none.
    std::uint64_t warmContainers = 1;
    static constexpr std::uint64_t kMaxWarmContainers = 8;
    std::string image = kDefaultAgentImage;        // docker/podman: the agent's image
    std::string network = "none";                  // the default network policy (TaskSpec::network)
    protocol::AgentKind agent = protocol::AgentKind::Warren; // the agent new tasks run (TaskSpec::agent)
    std::vector<std::string> recentWorkspaces; // most recent first, at most kMaxRecentWorkspaces
    // Shell command prefixes the user always allows ("git status"): commandPrefixRule, after the default rules.
    std::vector<std::string> allowedCommands;
    // By workspace: the hosts (HOST:PORT) a task there with `--network ask` reaches without asking, since the
    // user answered a question about them "always for this workspace".
    std::map<std::string, std::vector<std::string>> allowedHosts;
    // The user's own MCP servers by name, as .mcp.json's "mcpServers" holds them (McpServerSettings.h): every
    // task this computer's plane starts gets them, under its own of a name.
    nlohmann::json mcpServers = nlohmann::json::object();

    static constexpr std::size_t kMaxRecentWorkspaces = 8;
    friend bool operator==(const Settings&, const Settings&) = default;
};

// A bad provider/model pair, an unknown preset, a concurrency outside 1..64, an idle time over a week, a
// retention period over a hundred years, more than kMaxWarmContainers warm containers, an unknown network
// policy, an
// image name the engine would misread, an allowed command that is not a plain prefix, an allowed host that
// is not one HOST:PORT, or an MCP server the agent would leave out: what is wrong, as the user would fix it.
Status validateSettings(const Settings& settings);
// The list with workspace moved (or added) to the front, capped.
std::vector<std::string> rememberWorkspace(std::vector<std::string> recent, const std::string& workspace);

// Rows the store does not have keep their defaults; a row that no longer parses is reported.
Result<Settings> loadSettings(Store& store);
Status saveSettings(Store& store, const Settings& settings); // validated first

} // namespace warren::control
