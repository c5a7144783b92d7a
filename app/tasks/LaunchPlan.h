#pragma once
// Everything one launch of a task's agent decides before it touches anything: the agent's settings as it
// will resolve them (the control plane injects the memory prefix), whether safe-mode wants the strict
// profile, which directories to create, the sandbox's profile layers and the directories it is handed, the
// network and the egress proxy's socket, the provider (its key is looked up at launch, never planned), the
// task token's scopes and lifetime, and the task.start request. Pure: tests feed it rows; TaskRunner
// carries it out, one edge after the other.

#include "agent_core/config/AgentConfig.h"
#include "agent_core/protocol/Methods.h"
#include "app/egress/EgressPolicy.h"
#include "app/providers/ProviderConfig.h"
#include "app/secretproxy/SecretInjection.h"
#include "app/store/StoreTypes.h"
#include "app/tasks/AgentCli.h"
#include "app/tasks/AgentLaunch.h"
#include "app/tasks/ClusterPlacement.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskSpec.h"
#include "common/Result.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::control {

// What the control plane contributes to every plan.
struct PlanEnvironment {
    DataDir data;
    std::string agentBinary;                        // host path of warren-agent
    std::vector<nlohmann::json> extraProfileLayers; // WARREN_SANDBOX_PROFILE, applied last
    ClusterPlacement cluster; // warrend's; no agent address: --backend kubernetes is refused
    std::vector<std::string> userSkills; // FaceHooks::userSkills, then the task's FaceHooks::ownerSkills
    nlohmann::json ownerMcpServers = nlohmann::json::object(); // FaceHooks::ownerMcpServers, the task's
    int warmSandboxes = 0;                                     // RunnerEnvironment::warmSandboxes
};

struct LaunchPlan {
    agent::AgentConfig config;            // as the agent will resolve it, memory prefix included
    bool strict = false;                  // safe-mode: the strict profile on top of the agent's mounts
    std::vector<std::string> directories; // to create, in order: state, output, then memories if mounted
    TaskNetwork network;      // with the hosts of the task's secrets added
    std::string egressSocket; // allow:HOSTS: host path where the task's EgressProxy listens; empty: none
    std::vector<PinnedAddress> pinned; // --resolve
    // Secrets bound to hosts: where the task's certificate authority is written (host paths, mounted
    // read-only): its certificate alone (NODE_EXTRA_CA_CERTS) and with the system's (SSL_CERT_FILE, ...).
    // Empty: the task has no secrets.
    std::string egressAuthorityFile;
    std::string egressAuthorityBundle;
    // A CLI agent: where it is installed, and the host path where the task's ModelProxy listens (the CLI's
    // only way to its model, with the task token as its key). nullopt and empty: Warren's own agent. A
    // cluster's pod: the image's CLI (imageCli) and no socket: its model calls cross warrend's agents'
    // listener (clusterAddress).
    std::optional<CliInstall> cli;
    std::string modelSocket;
    // A sandbox with no stdin for the protocol (kube): the agent connects to an AgentListener on a socket in
    // this directory, made afresh for each launch, with the task token in a file beside it (0400).
    std::string channelDir;   // empty: stdin and stdout
    // A pod on a cluster (kubernetes): its agent connects over the network to this address (the server's
    // one listener for all its cluster tasks), with the token from the pod's Secret. Empty: not a cluster.
    std::string clusterAddress;
    // A cluster's pod: the host directories its agent fills its own from and sends back (workspace.pull,
    // workspace.push; `serve --carry-trees`), by the protocol's tree name, and where pushed archives wait
    // (on the same file system, tasks/<id>/trees). Empty: the agent has them, mounted.
    std::map<std::string, std::string> carriedTrees;
    std::string carriedTreesScratch;
    AgentLaunch launch;       // all but its stdio, which the agent's pipes supply
    ProviderConfig provider;  // without the key
    std::vector<std::string> tokenScopes;
    std::chrono::seconds tokenLifetime{0}; // outlives the task's timeout; a week without one
    std::uint64_t run = 1;                 // which launch of the task this is (ToolProxy::Settings::run)
    protocol::TaskStartParams start;       // without the token, issued when the plan is carried out
};

// An error is the user's to fix before anything runs: a bad preset or --set, network or provider, more MCP
// servers with the owner's (PlanEnvironment::ownerMcpServers, Warren's agent only) than a task starts, a data
// directory so deep that the egress or agent socket's path does not fit a Unix socket address, a CLI agent
// with a provider whose wire it does not speak, or a cluster task where nothing takes its agent's connection
// or what it asks for needs this host's files. cli: the install of the CLI spec.agent names, found by the
// caller (locateCli); nullopt for Warren's own agent. secrets: the task's, looked up and given placeholders
// by the caller; their hosts join the allow-list and their placeholders the sandbox's environment (their
// values are not read).
Result<LaunchPlan> planLaunch(const TaskRecord& task, const TaskSpec& spec, const PlanEnvironment& environment,
                              const std::optional<CliInstall>& cli = std::nullopt,
                              const std::vector<TaskSecret>& secrets = {});

} // namespace warren::control
