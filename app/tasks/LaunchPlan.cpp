#include "app/tasks/LaunchPlan.h"

#include "agent_core/mcp/McpServers.h"
#include "app/proxy/TaskToken.h"
#include "app/tasks/AgentSandbox.h"
#include "sandbox/Backend.h"

#include <algorithm>
#include <sys/un.h>

namespace warren::control {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxUnixSocketPath = sizeof(sockaddr_un{}.sun_path);

// One local user: the control plane's memory prefix is "local" unless the task names its own.
json withMemoryPrefix(json overrides) {
    if (!overrides.contains("memory_prefix") || overrides["memory_prefix"] == "")
        overrides["memory_prefix"] = "local";
    return overrides;
}

Status fitsUnixSocket(const std::string& socket, const char* whose) {
    if (socket.size() >= kMaxUnixSocketPath)
        return makeError(ErrorCode::InvalidArgument, std::string("the ") + whose + " socket path " + socket +
                                                         " is too long for a Unix socket; pass a shorter --data-dir");
    return Ok{};
}

Result<std::string> egressSocketPath(const TaskNetwork& network, const DataDir& data, const std::string& id) {
    if (network.kind != TaskNetwork::Kind::Allow)
        return std::string();
    const std::string socket = data.taskDir(id) + "/egress.sock";
    if (auto fits = fitsUnixSocket(socket, "egress proxy's"); !fits)
        return fits.error();
    return socket;
}

Result<std::string> modelSocketPath(const DataDir& data, const std::string& id) {
    const std::string socket = data.taskDir(id) + "/model.sock";
    if (auto fits = fitsUnixSocket(socket, "model proxy's"); !fits)
        return fits.error();
    return socket;
}

Result<std::string> channelDirectory(sandbox::Backend backend, const DataDir& data, const std::string& id) {
    if (sandbox::agentRoute(backend) != sandbox::AgentRoute::HostSocket)
        return std::string();
    const std::string dir = data.taskDir(id) + "/channel";
    if (auto fits = fitsUnixSocket(dir + "/" + kChannelSocketName, "agent's"); !fits)
        return fits.error();
    return dir;
}

// A pod on a cluster reaches nothing of this host but the agents' listener: what needs more is refused.
Status fitsCluster(const LaunchPlan& plan, const PlanEnvironment& environment) {
    if (environment.cluster.agentAddress.empty())
        return makeError(ErrorCode::Unsupported,
                         "the kubernetes backend needs a listener for agents on the network, which only warrend has: "
                         "start warrend serve with --agent-address HOST:PORT (and --agent-advertise HOST:PORT when "
                         "the pods reach it by another name; docs/DEPLOY.md). On one host, run the task with "
                         "--backend kube");
    if (plan.network.kind == TaskNetwork::Kind::Allow)
        return makeError(
            ErrorCode::Unsupported,
            "--network allow:HOSTS needs the egress proxy's socket of this host, which a pod on a "
            "cluster cannot reach; run the cluster task with --network none");
    if (plan.config.memoryBackend == agent::MemoryBackendKind::Filesystem)
        return makeError(ErrorCode::Unsupported,
                         "the filesystem memory backend keeps memories in a directory of this host, which a pod on "
                         "a cluster cannot reach; use the host memory backend (--set memory_backend=host)");
    return Ok{};
}

AgentSandboxInput sandboxInput(const LaunchPlan& plan, const TaskRecord& task, const TaskSpec& spec,
                               const PlanEnvironment& environment) {
    AgentSandboxInput input;
    input.workspace = task.workspace;
    input.stateDir = environment.data.stateDir(task.id);
    input.outputDir = environment.data.outputDir(task.id);
    input.agentBinary = environment.agentBinary;
    // A CLI speaks HTTP to its model on the sandbox's own loopback (the agent forwards it to the proxy's
    // socket): its own network namespace, with no route out, as with network none.
    input.network = plan.network.kind == TaskNetwork::Kind::None && !plan.cli ? "none" : "loopback";
    input.egressSocket = plan.egressSocket;
    input.egressAuthorityFile = plan.egressAuthorityFile;
    input.egressAuthorityBundle = plan.egressAuthorityBundle;
    input.channelDir = plan.channelDir;
    input.cli = plan.cli;
    input.modelSocket = plan.modelSocket;
    input.clusterAddress = plan.clusterAddress;
    if (!plan.clusterAddress.empty() && !environment.cluster.serviceAddress.empty() &&
        environment.cluster.serviceAddress != environment.cluster.agentAddress)
        input.clusterReconnect = "tcp:" + environment.cluster.serviceAddress;
    input.strict = plan.strict;
    input.extraLayers = environment.extraProfileLayers;
    input.memoryPrefix = plan.config.memoryPrefix;
    if (spec.limits)
        input.limits = spec.limits->limits;
    if (plan.config.memoryBackend == agent::MemoryBackendKind::Filesystem)
        input.memoriesDir = environment.data.memoriesDir(plan.config.memoryPrefix);
    return input;
}

AgentLaunch agentLaunch(const AgentSandboxInput& input, const TaskRecord& task, const TaskSpec& spec,
                        const ClusterPlacement& cluster, int warmSandboxes) {
    AgentLaunch launch;
    launch.backend = spec.backend;
    launch.image = spec.image;
    launch.taskId = task.id;
    launch.command = agentCommand(input);
    launch.layers = agentProfileLayers(input);
    launch.warm = warmSandboxes;
    launch.warmWaiter = input.agentBinary;
    // Not the workspace, not even the demo's copy in the data directory: a root-owned one is written through
    // an idmapped view (docs/SECURITY.md), which the owner that the launch chose would no longer match.
    launch.ownedDirs = {input.stateDir, input.outputDir};
    if (!input.memoriesDir.empty())
        launch.ownedDirs.push_back(input.memoriesDir);
    if (!input.channelDir.empty()) // the token and the socket with it: the agent's uid reads and connects
        launch.ownedDirs.push_back(input.channelDir);
    if (!input.clusterAddress.empty()) { // nothing of this host is the pod's; the token is its Secret's
        launch.ownedDirs.clear();
        launch.tokenDir = kChannelDirInSandbox;
        launch.controlPlane = cluster.peer;
        launch.runtimeClass = cluster.runtimeClass;
    }
    return launch;
}

// The secrets' hosts join the allow-list (a task without one now has one: loopback and those hosts).
void addSecretHosts(TaskNetwork& network, const std::vector<TaskSecret>& secrets) {
    if (secrets.empty())
        return;
    if (network.kind != TaskNetwork::Kind::Allow)
        network = TaskNetwork{TaskNetwork::Kind::Allow, {}};
    for (const TaskSecret& secret : secrets)
        for (const HostRule& rule : secret.secret.hosts)
            if (std::find(network.hosts.begin(), network.hosts.end(), rule) == network.hosts.end())
                network.hosts.push_back(rule);
}

// The owner's MCP servers (warrend: their tenant's) under the task's own: a name the task's mcp_servers has
// is the task's server. A setting that is not an object is left for resolveConfig to name.
Status addOwnersMcpServers(json& overrides, const json& owners) {
    if (!owners.is_object() || owners.empty())
        return Ok{};
    json servers = owners;
    const json own = overrides.value("mcp_servers", json::object());
    if (!own.is_object())
        return Ok{};
    for (const auto& [name, server] : own.items())
        servers[name] = server;
    if (servers.size() > agent::kMaxMcpServers)
        return makeError(ErrorCode::InvalidArgument,
                         "the task's " + std::to_string(own.size()) + " MCP servers (mcp_servers) and its tenant's " +
                             std::to_string(owners.size()) + " make " + std::to_string(servers.size()) +
                             ", more than the " + std::to_string(agent::kMaxMcpServers) +
                             " a task starts: name fewer servers of your own");
    overrides["mcp_servers"] = std::move(servers);
    return Ok{};
}

} // namespace

Result<LaunchPlan> planLaunch(const TaskRecord& task, const TaskSpec& spec, const PlanEnvironment& environment,
                              const std::optional<CliInstall>& cli, const std::vector<TaskSecret>& secrets) {
    LaunchPlan plan;
    json overrides = withMemoryPrefix(spec.overrides);
    // The user's skills, for Warren's own agent on this machine (a pod mounts nothing of the host).
    const bool userSkills = !environment.userSkills.empty() && spec.agent == protocol::AgentKind::Warren &&
                            sandbox::agentRoute(spec.backend) != sandbox::AgentRoute::Network;
    if (userSkills) {
        json dirs = overrides.value("skills_dirs", json::array());
        for (std::size_t i = 0; i < environment.userSkills.size() && dirs.is_array(); ++i)
            dirs.push_back(userSkillsInSandbox(i));
        overrides["skills_dirs"] = dirs;
    }
    // The MCP servers are Warren's agent's to start: a CLI agent reads its own configuration.
    if (spec.agent == protocol::AgentKind::Warren)
        if (auto added = addOwnersMcpServers(overrides, environment.ownerMcpServers); !added)
            return added.error();
    auto config = agent::resolveConfig(spec.presets, overrides);
    if (!config)
        return config.error();
    plan.config = std::move(*config);
    plan.strict = std::find(spec.presets.begin(), spec.presets.end(), "safe-mode") != spec.presets.end();
    if (auto honours = cliHonoursConfig(spec.agent, plan.config); !honours)
        return honours.error();
    auto network = parseTaskNetwork(spec.network);
    if (!network)
        return network.error();
    plan.network = std::move(*network);
    addSecretHosts(plan.network, secrets);
    for (const std::string& entry : spec.resolve) {
        auto pinned = parsePinnedAddress(entry);
        if (!pinned)
            return pinned.error();
        plan.pinned.push_back(std::move(*pinned));
    }
    if (!secrets.empty()) {
        plan.egressAuthorityFile = environment.data.taskDir(task.id) + "/egress-ca.pem";
        plan.egressAuthorityBundle = environment.data.taskDir(task.id) + "/egress-ca-bundle.pem";
    }
    auto provider = parseProviderSpec(spec.provider, spec.model);
    if (!provider)
        return provider.error();
    plan.provider = std::move(*provider);
    if (auto speaks = cliSpeaksProvider(spec.agent, plan.provider); !speaks)
        return speaks.error();
    if (protocol::isCliAgent(spec.agent)) {
        if (!cli)
            return makeError(ErrorCode::InvalidArgument, std::string(protocol::agentKindName(spec.agent)) +
                                                             " is not installed where it was looked for");
        plan.cli = cli;
        // A cluster's pod has no socket of this host: its calls cross warrend's agents' listener.
        if (sandbox::agentRoute(spec.backend) != sandbox::AgentRoute::Network) {
            auto model = modelSocketPath(environment.data, task.id);
            if (!model)
                return model.error();
            plan.modelSocket = std::move(*model);
        }
    }
    auto socket = egressSocketPath(plan.network, environment.data, task.id);
    if (!socket)
        return socket.error();
    plan.egressSocket = std::move(*socket);
    auto channel = channelDirectory(spec.backend, environment.data, task.id);
    if (!channel)
        return channel.error();
    plan.channelDir = std::move(*channel);
    if (sandbox::agentRoute(spec.backend) == sandbox::AgentRoute::Network) {
        if (auto fits = fitsCluster(plan, environment); !fits)
            return fits.error();
        plan.clusterAddress = "tcp:" + environment.cluster.agentAddress;
    }

    AgentSandboxInput input = sandboxInput(plan, task, spec, environment);
    if (userSkills)
        input.userSkills = environment.userSkills;
    for (const TaskSecret& secret : secrets)
        input.secretPlaceholders.emplace(secret.secret.name, secret.placeholder);
    plan.directories = {input.stateDir, input.outputDir};
    if (!input.memoriesDir.empty())
        plan.directories.push_back(input.memoriesDir);
    if (!plan.clusterAddress.empty()) {
        plan.carriedTrees = {{"workspace", input.workspace}, {"state", input.stateDir}, {"output", input.outputDir}};
        plan.carriedTreesScratch = environment.data.taskDir(task.id) + "/trees";
        plan.directories.push_back(plan.carriedTreesScratch);
    }
    plan.launch = agentLaunch(input, task, spec, environment.cluster, environment.warmSandboxes);

    plan.tokenScopes = {scope::kLlm, scope::kMemory, scope::kApproval};
    if (!plan.channelDir.empty() || !plan.clusterAddress.empty())
        plan.tokenScopes.push_back(scope::kChannel);
    if (!plan.carriedTrees.empty())
        plan.tokenScopes.push_back(scope::kTrees);
    plan.tokenLifetime = std::chrono::seconds(spec.timeoutSec ? spec.timeoutSec + 300 : 7 * 24 * 3600);
    plan.run = task.runs + 1;
    plan.start.taskId = task.id;
    plan.start.prompt = task.prompt;
    plan.start.presets = spec.presets;
    plan.start.overrides = overrides;
    // What the agent tells the model about its run (agent_core/prompt/SystemPrompt.h).
    plan.start.sandbox = sandbox::backendName(spec.backend);
    plan.start.network = spec.network;
    plan.start.provider = plan.provider.name;
    if (!plan.provider.model.empty())
        plan.start.model = plan.provider.model;
    plan.start.attended = spec.attended;
    if (plan.cli) // the CLI in place of Warren's loop, its model only through the proxy's socket or listener
        plan.start.cli = protocol::CliAgentParams{
            spec.agent,          plan.cli->program,
            plan.cli->pathDirs,  plan.modelSocket.empty() ? "" : kModelSocketInSandbox,
            plan.provider.model, plan.config.approvalTools};
    return plan;
}

} // namespace warren::control
