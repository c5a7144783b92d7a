#include "app/tasks/AgentSandbox.h"

#include "sandbox/policy/SandboxProfile.h"

#include <string_view>

// resources/profiles/strict.json, embedded by tasks/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view strictProfileText;
} // namespace warren::resources

namespace warren::control {

using nlohmann::json;

const json& strictProfileJson() {
    static const json profile = json::parse(resources::strictProfileText);
    return profile;
}

namespace {

// Nothing of the host: the pod's own scratch for what the agent writes besides the workspace.
json clusterMounts() {
    return {{"/state", {{"type", "tmpfs"}, {"size_mb", kClusterScratchMb}}},
            {"/output", {{"type", "tmpfs"}, {"size_mb", kClusterScratchMb}}}};
}

} // namespace

std::string userSkillsInSandbox(std::size_t index) {
    return std::string(kSkillsDirInSandbox) + "/" + std::to_string(index);
}

namespace {

json hostMounts(const AgentSandboxInput& input) {
    json mounts = {
        {"/state", {{"type", "bind"}, {"source", input.stateDir}}},
        {"/output", {{"type", "bind"}, {"source", input.outputDir}}},
        {kAgentPathInSandbox, {{"type", "ro-bind"}, {"source", input.agentBinary}}},
    };
    if (!input.memoriesDir.empty())
        mounts["/memories/" + input.memoryPrefix] = {{"type", "bind"}, {"source", input.memoriesDir}};
    if (!input.channelDir.empty())
        mounts[kChannelDirInSandbox] = {{"type", "ro-bind"}, {"source", input.channelDir}};
    for (std::size_t i = 0; i < input.userSkills.size(); ++i)
        mounts[userSkillsInSandbox(i)] = {{"type", "ro-bind"}, {"source", input.userSkills[i]}, {"optional", true}};
    if (input.cli) {
        mounts[input.cli->directory ? std::string(kCliDirInSandbox) : input.cli->program] = {
            {"type", "ro-bind"}, {"source", input.cli->source}};
        mounts[kModelSocketInSandbox] = {{"type", "bind"}, {"source", input.modelSocket}};
    }
    return mounts;
}

} // namespace

std::vector<json> agentProfileLayers(const AgentSandboxInput& input) {
    const json mounts = input.clusterAddress.empty() ? hostMounts(input) : clusterMounts();
    std::vector<json> layers{sandbox::defaultProfileJson()};
    layers.push_back({{"workspace", {{"source", input.workspace}}}, {"mounts", mounts}});
    if (input.strict)
        layers.push_back(strictProfileJson());
    if (input.cli) // its runtime's address space, where the memory limit is an RLIMIT_AS (LimitPlan)
        layers.push_back({{"limits", {{"address_space_floor_mb", kCliAddressSpaceFloorMb}}}});
    json network = {{"network", input.network}};
    if (!input.egressSocket.empty()) {
        network["mounts"] = {{kEgressSocketInSandbox, {{"type", "bind"}, {"source", input.egressSocket}}}};
        const std::string port = std::to_string(kEgressPort);
        json env = {{"WARREN_EGRESS_SOCKET", kEgressSocketInSandbox}, {"WARREN_EGRESS_PORT", port},
                    {"NO_PROXY", "localhost,127.0.0.1,::1"}, {"no_proxy", "localhost,127.0.0.1,::1"}};
        for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
            env[name] = "http://127.0.0.1:" + port;
        std::string names;
        for (const auto& [name, placeholder] : input.secretPlaceholders) {
            env[name] = placeholder;
            names += (names.empty() ? "" : ",") + name;
        }
        if (!names.empty()) // a CLI agent builds its commands' environment afresh: these are passed on
            env["WARREN_SECRETS"] = names;
        if (!input.egressAuthorityFile.empty()) {
            network["mounts"][kEgressAuthorityInSandbox] = {{"type", "ro-bind"}, {"source", input.egressAuthorityFile}};
            network["mounts"][kAuthorityBundleInSandbox] = {{"type", "ro-bind"}, {"source", input.egressAuthorityBundle}};
            for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"})
                env[name] = kAuthorityBundleInSandbox;
            env["NODE_EXTRA_CA_CERTS"] = kEgressAuthorityInSandbox;
        }
        network["env"] = env;
    }
    layers.push_back(network);
    for (const auto& layer : input.extraLayers)
        layers.push_back(layer);
    if (!input.limits.empty())
        layers.push_back({{"limits", input.limits}});
    return layers;
}

std::vector<std::string> agentCommand(const AgentSandboxInput& input) {
    const bool cluster = !input.clusterAddress.empty();
    std::vector<std::string> command{cluster ? kAgentInImage : kAgentPathInSandbox,
                                     "serve", "--workspace", "/workspace", "--state", "/state", "--output", "/output"};
    const std::string dir = kChannelDirInSandbox;
    if (cluster || !input.channelDir.empty())
        command.insert(command.end(),
                       {"--connect", cluster ? input.clusterAddress : "unix:" + dir + "/" + kChannelSocketName,
                        "--token-file", dir + "/" + kChannelTokenName});
    if (cluster) // the pod has none of this host's files: the trees cross the connection
        command.push_back("--carry-trees");
    if (cluster && !input.clusterReconnect.empty())
        command.insert(command.end(), {"--reconnect", input.clusterReconnect});
    return command;
}

} // namespace warren::control
