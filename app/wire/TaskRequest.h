#pragma once
// The body of POST /v1/tasks (docs/SERVER.md): what the client writes (RemoteControlPlane, from a TaskSpec)
// and the server reads, strictly: an unknown field, a wrong type or an impossible value is refused with a
// message naming the field, before anything is created.
//
//   {"prompt", "workspace": UPLOAD_ID, "provider"?, "model"?, "script"?, "presets"?, "settings"?,
//    "network"?, "limits"?, "token_budget"?, "queue"?, "attended"?, "agent"?, "secrets"?, "moved"?}
//
// script is a scripted model's {"turns": [...]} inline (the demo and tests), read by the same parser as a
// script file; it excludes provider. limits are the sandbox's, by the profile's names (memory_mb, pids,
// cpu_seconds, timeout_sec, ...): what the caller asks for, which the server reads against its quotas
// (accounts::limitsFromJson) and clamps. settings: the agent's settings over the presets (`warren run --set
// KEY=VALUE`, the user's MCP servers as mcp_servers), an object of any JSON values but null, checked against
// the agent's settings table when the spec is. queue: when every concurrency slot of the caller's is taken,
// the task waits for one instead of being refused. attended: someone follows the task (a terminal's `warren
// run --remote`), so a reply of the model without a tool call ends the run waiting for theirs (status
// waiting) instead of being nudged. agent: warren (the default), claude-code or codex: a CLI the server's
// operator installed (DESIGN §11); the caller names no path of the server's. moved: the task goes on from
// another control plane's (`warren move`, DESIGN §14): {"from": its id there, "status": paused, interrupted,
// waiting or sleeping, "history": the id of an upload holding its events and checkpoint
// (app/tasks/TaskMove.h)}; only Warren's own agent moves.

#include "agent_core/protocol/AgentKind.h"
#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::wire {

inline constexpr std::size_t kMaxPromptBytes = 256 * 1024;

// Where a moved task comes from (TaskRequest::moved).
struct MoveOrigin {
    std::string from;                                         // its id there: "t-" and 12 hex digits
    control::TaskStatus status = control::TaskStatus::Paused; // paused, interrupted, waiting or sleeping
    std::string history; // an upload's id: kMovedEventsFile and kMovedCheckpointFile
    friend bool operator==(const MoveOrigin&, const MoveOrigin&) = default;
};

struct TaskRequest {
    std::string prompt;
    std::string workspace; // an upload's id
    std::string provider;  // empty: the server's default
    std::string model;     // empty: the server's default
    std::optional<nlohmann::json> script; // {"turns": [...]}, parsed as a script file is
    std::vector<std::string> presets;
    nlohmann::json settings = nlohmann::json::object(); // agent settings: key -> their JSON value
    std::string network = "none";
    nlohmann::json limits = nlohmann::json::object(); // sandbox limits by name; their values are the server's to read
    std::uint64_t tokenBudget = 0;                    // 0: none asked for
    bool queue = false;
    bool attended = false;
    protocol::AgentKind agent = protocol::AgentKind::Warren;
    std::vector<std::string> secrets; // the caller's secrets bound to hosts (PUT /v1/me/secrets/{name}), by name
    std::optional<MoveOrigin> moved;

    // Only what differs from the defaults, besides prompt, workspace and network.
    nlohmann::json toJson() const;
    static Result<TaskRequest> fromJson(const nlohmann::json& body);
};

} // namespace warren::wire
