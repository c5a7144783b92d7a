#pragma once
// What every runner of one control plane shares: the engine's parts (app/engine/ControlEngine builds them
// once for both faces) and what the face adds (FaceHooks: the desktop's keychain, warrend's accounts and
// cluster).

#include "agent_core/protocol/AgentKind.h"
#include "app/egress/InsideDestinations.h"
#include "app/proxy/ApprovalRules.h"
#include "app/secretproxy/HostSecret.h"
#include "app/store/StoreTypes.h"
#include "app/tasks/ClusterPlacement.h"
#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

class QNetworkAccessManager;

namespace warren::control {

class AgentListener;
class CancelRequests;
class EngineMetrics;
struct ProviderConfig;
class Store;
class TaskClaims;
class StoredEvents;
class TaskTokens;

// Where the faces differ in how a task runs.
struct FaceHooks {
    // The API key for the task's provider, looked up just before launch and only for a provider that needs
    // one: the desktop's SecretStore (ProviderKey), warrend's the task owner's own key or the server's.
    std::function<Result<std::string>(const TaskRecord& task, const ProviderConfig& provider)> providerKey;
    // A secret bound to hosts the task names (--secret NAME), with its value, looked up at each launch: the
    // desktop's SecretStore; warrend's the task owner's own secret, else their tenant's.
    std::function<Result<HostSecret>(const TaskRecord& task, const std::string& name)> hostSecret;
    // `--network ask`: the hosts the user allowed for the task's workspace ("always for this workspace"),
    // looked up at each launch: the desktop's settings; unset (warrend, whose workspaces are each task's own
    // copy): none.
    std::function<Result<std::vector<HostRule>>(const TaskRecord& task)> workspaceHosts;
    // Where the task's provider may be connected to, decided just before launch: unset or nullopt (the
    // desktop, and warrend's own configured endpoints): wherever its URL points; else (warrend, an endpoint
    // a user named) only at addresses outside this machine and its networks, or the operator's.
    std::function<std::optional<InsideAccess>(const ProviderConfig& provider)> providerAccess;
    // Which addresses inside this machine and its networks the egress proxy's rules reach: the desktop's
    // user decides (an address literal), warrend's operator (--allow-internal) whatever the rules say.
    InsideAccess egressAccess;
    // warrend's operator's, for every task (users name neither): names the egress proxy reaches at an
    // address of the operator's choosing (serve --resolve), and certificates it trusts besides the system's
    // for a secret's host (serve --egress-ca). The desktop's come with each task (--resolve, --egress-ca).
    std::vector<PinnedAddress> egressPinned;
    std::string egressCa;
    // More labels of the task's sandbox (warrend: its owner's tenant and user); unset: none.
    std::function<Result<std::map<std::string, std::string>>(const TaskRecord& task)> sandboxLabels;
    // The CLI agents' installs the face names (warrend serve --agent-cli KIND=PATH); a kind not named is
    // looked up on PATH at each launch (locateCli), unless the task names its own (the desktop's --agent-path).
    std::map<protocol::AgentKind, std::string> agentClis;
    // Host folders of the user's own skills (DESIGN §13), mounted read-only into the sandbox of Warren's
    // agent and named in its skills_dirs: the desktop's (~/.claude/skills, ~/.agents/skills, those there
    // are); warrend: none (its host's folders are the operator's).
    std::vector<std::string> userSkills;
    // MCP servers the face gives a task besides its own, read at each launch (warrend: its owner's tenant's,
    // `warrend admin set-mcp-servers`): an object by name, as .mcp.json's "mcpServers"; a server of a name the
    // task's own mcp_servers has is the task's. Unset (the desktop): none.
    std::function<Result<nlohmann::json>(const TaskRecord& task)> ownerMcpServers;
    // Host folders of skills the face gives a task besides userSkills, looked up at each launch (warrend: its
    // owner's tenant's packs, `warrend admin install-skills`), mounted and named as userSkills are. Unset: none.
    std::function<Result<std::vector<std::string>>(const TaskRecord& task)> ownerSkills;
    // The longest a task of the owner's may only wait for its user before it sleeps, in seconds, looked up
    // at each launch (warrend: the smaller of the owner's and their tenant's quota idle_sleep_sec). Unset or
    // nullopt: no bound of the owner's (RunnerEnvironment::idleSleep and the task's setting still bind).
    std::function<Result<std::optional<std::uint64_t>>(const TaskRecord& task)> ownerIdleSleep;
    ClusterPlacement cluster;               // warrend's (PlanEnvironment); no agent address: no cluster
    AgentListener* clusterAgents = nullptr; // warrend's one listener for the agents of its cluster tasks
    TaskClaims* claims = nullptr;           // warrend's leases (TaskClaims.h); null: this process alone
};

struct RunnerEnvironment {
    Store* store = nullptr;
    EngineMetrics* metrics =
        nullptr;                    // the engine's; null: nothing is counted (tests that build runners alone)
    StoredEvents* events = nullptr; // the writer, and its commits handed to each task's EventSequencer
    TaskTokens* tokens = nullptr;
    QNetworkAccessManager* network = nullptr;
    CancelRequests* cancelRequests = nullptr; // the TaskManager's; null: `warren cancel` is not heard
    // (tests that build runners alone)
    DataDir data;
    std::string agentBinary;
    std::vector<nlohmann::json> extraProfileLayers; // WARREN_SANDBOX_PROFILE, then the face's
    FaceHooks face;
    std::vector<ApprovalRule> approvalRules;
    std::chrono::milliseconds stopGrace{5000}; // between asking, SIGTERM and SIGKILL
    // How long a question of `--network ask` waits for the user before its connections are refused.
    std::chrono::milliseconds networkQuestionWait{120'000};
    // How long a run of Warren's agent that only waits for its user's answers (IdleWait) keeps its sandbox
    // before it sleeps (TaskSleep.h), or less where the owner's quota or the task's idle_sleep_sec says so
    // (idleSleepFor); 0: no time of the face's (the desktop: its user is at the window or the terminal, and
    // only a task's own setting puts it to sleep).
    std::chrono::milliseconds idleSleep{0};
    // How many warm containers of a podman task's shape to keep ready for the next tasks of that shape
    // (sandbox/container/WarmPool.h: rootful podman run by root); 0: every launch is cold.
    int warmSandboxes = 0;
    // How long the agent's next request waits for the snapshot of the workspace before its step.
    std::chrono::milliseconds snapshotBudget{5000};
};

} // namespace warren::control
