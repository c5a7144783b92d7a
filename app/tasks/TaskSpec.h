#pragma once
// How to run one task, as the user asked for it: provider, model, presets, settings, sandbox options,
// limits. Stored with the task (tasks.spec, JSON) so `warren resume` relaunches it the same way. Never
// holds a key: the provider's key is looked up by name at launch.

#include "agent_core/protocol/AgentKind.h"
#include "agent_core/protocol/EventPayloads.h"
#include "app/proxy/ApprovalMode.h"
#include "common/Result.h"
#include "sandbox/Backend.h"
#include "sandbox/container/DockerCommand.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace warren::agent {
struct AgentConfig;
}

namespace warren::control {

// The image a container backend runs the agent on when none is chosen. The agent is statically linked, so
// any image with a root filesystem will do; it is never pulled behind the user's back.
inline constexpr const char* kDefaultAgentImage = sandbox::kDefaultContainerImage;

struct TaskSpec {
    std::string provider;  // --provider: "scripted:FILE", "openai", ... (ProviderConfig.h)
    std::string model;     // --model
    std::vector<std::string> presets;
    nlohmann::json overrides = nlohmann::json::object(); // --set KEY=VALUE, agent settings
    std::string network = "none";                        // "none", "loopback" or "allow:HOST[,HOST...]"
    // Secrets bound to hosts (DESIGN §12), by name: looked up at each launch, each in the sandbox only as a
    // placeholder, its value put in by the egress proxy for its hosts, which join the allow-list.
    std::vector<std::string> secrets;
    // The desktop's: --resolve HOST:PORT:ADDRESS (EgressPolicy's PinnedAddress), and --egress-ca FILE, PEM
    // certificates the egress proxy trusts besides the system's when it connects on for a secret's host.
    std::vector<std::string> resolve;
    std::string egressCa;
    ApprovalMode approval = ApprovalMode::Deny;          // what an approval no rule decides becomes
    std::uint64_t timeoutSec = 0;                        // wall clock over the whole task; 0: none
    std::uint64_t tokenBudget = 0;                       // tokens in + out over the whole task; 0: none
    bool demo = false; // the built-in scripted demo (provider is its script), labelled as such
    // A user follows the task (the window, `warren run` on a terminal, a server request that asks): a reply
    // of the model without a tool call ends the run waiting for theirs (TaskStatus::Waiting).
    bool attended = false;
    sandbox::Backend backend = sandbox::Backend::Bwrap; // the sandbox; stored as its backendName()
    std::string image = kDefaultAgentImage;            // docker/podman: the image the agent runs on
    // Which agent runs in the sandbox (DESIGN §11): Warren's own, or a CLI under its supervisor. The CLI is
    // the user's install: agentPath names it (`--agent-path`, the desktop only: a server's user names no
    // path of the server's), else the face's own (warrend serve's, or found on PATH) at each launch.
    protocol::AgentKind agent = protocol::AgentKind::Warren; // stored as its agentKindName()
    std::string agentPath;
    // The sandbox limits a server clamped to its quotas (profile limit names), applied over every other
    // layer and recorded as the task's first event; unset on the desktop, where the profile decides.
    std::optional<protocol::LimitsAppliedData> limits;

    nlohmann::json toJson() const;
    static Result<TaskSpec> fromJson(const nlohmann::json& value);
    // A task record's spec as stored (TaskRecord::spec, JSON text): the one reading of it.
    static Result<TaskSpec> fromText(std::string_view text);
};

// `warren resume TASK --backend X --image I`: where a resumed task runs from now on. Its checkpoint is the
// agent's, not the sandbox's, so it continues in any backend.
struct SandboxMove {
    std::optional<sandbox::Backend> backend;
    std::optional<std::string> image;
};

// Checks what can be checked before anything is launched: the presets and --set keys (with the agent's
// own settings table, so the error is the one the agent would give), that the task's agent can honour them
// (cliHonoursConfig), the network policy and the image's name. The backend was parsed where it came in
// (sandbox::parseBackend).
Status validateSpec(const TaskSpec& spec);

// What a CLI agent cannot honour of a task's settings: Codex's calls cannot wait for the user's approval
// (approval_tools, as the safe-mode preset sets), so such a Codex task is refused rather than run without
// the asks (docs/AGENT.md, "A CLI agent"); Claude Code's can. No CLI sleeps while it waits, so
// idle_sleep_sec is refused for both. At submission (validateSpec) and at launch (planLaunch). Pure.
Status cliHonoursConfig(protocol::AgentKind agent, const agent::AgentConfig& config);
Status validateNetwork(const std::string& network); // "none", "loopback" or "allow:HOST[,HOST...]"
// The names of --secret (HostSecret's rules, no name twice) and the entries of --resolve.
Status validateEgressOptions(const TaskSpec& spec);
Status validateImage(const std::string& image);     // a name the engine's command line reads as one

} // namespace warren::control
