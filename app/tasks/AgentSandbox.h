#pragma once
// What the sandbox of one task's agent looks like, as profile layers for the sandbox library: the default
// profile, then the agent's own mounts (/workspace, /state, /output, /memories/<prefix>, the agent binary at
// /opt/warren/warren-agent), then the strict profile when safe-mode asks for it, then the task's network
// (so a network the user chose is not undone by safe-mode's "none"; with an egress proxy, its socket at
// /opt/warren/egress.sock and the proxy variables tools read), then the site's extra layer, then the limits a server clamped to its quotas (so no layer
// raises them).
// Pure: tests inspect the layers; planLaunch puts them in the task's AgentLaunch.

#include "app/tasks/AgentCli.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

struct AgentSandboxInput {
    std::string workspace;    // host directory mounted at /workspace
    std::string stateDir;     // host: tasks/<id>/state
    std::string outputDir;    // host: tasks/<id>/output
    std::string memoriesDir;  // host: memories/<prefix>; empty: none mounted
    std::string memoryPrefix; // mounted at /memories/<prefix>
    std::string agentBinary;  // host path of warren-agent
    std::string network = "none"; // the sandbox's: "none" or "loopback"
    std::string egressSocket;     // host path of the task's egress proxy socket; empty: none
    // Secrets bound to hosts: each NAME=placeholder in the environment, and the task's certificate authority
    // (host paths), mounted at /opt/warren/egress-ca.pem and, with the system's, /opt/warren/ca-bundle.pem,
    // named by the variables TLS clients read (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, ...).
    std::map<std::string, std::string> secretPlaceholders;
    std::string egressAuthorityFile;
    std::string egressAuthorityBundle;
    // The agent connects (serve --connect): host directory with the control plane's socket and the task
    // token, mounted read-only at /opt/warren/channel. Empty: the protocol goes over stdin and stdout.
    std::string channelDir;
    // A pod on a cluster (--backend kubernetes): tcp:HOST:PORT, warrend's listener, where the agent connects
    // with the token its Secret mounts at /opt/warren/channel. No host path is mounted (no node has them):
    // the agent is the image's, on its PATH; /state and /output are the pod's own (tmpfs); the workspace is
    // the pod's empty directory.
    std::string clusterAddress;
    // tcp:HOST:PORT where the pod's agent also connects again once its connection is lost (warrend's Service,
    // reaching every replica); empty: clusterAddress alone.
    std::string clusterReconnect;
    // A CLI agent (Claude Code, Codex): its install, mounted read-only, and the host path of the task's model
    // proxy socket, mounted at /opt/warren/model.sock (the CLI's only way to its model).
    std::optional<CliInstall> cli;
    std::string modelSocket;
    // Host folders of the user's skills, mounted read-only at kSkillsDirInSandbox/0, /1, ... (a folder gone
    // by the launch is left out).
    std::vector<std::string> userSkills;
    bool strict = false;      // resources/profiles/strict.json on top
    std::vector<nlohmann::json> extraLayers; // the site's (WARREN_SANDBOX_PROFILE)
    nlohmann::json limits = nlohmann::json::object(); // a server's clamped limits, applied last
};

inline constexpr const char* kAgentPathInSandbox = "/opt/warren/warren-agent";
inline constexpr const char* kAgentInImage = "warren-agent"; // a cluster's pod: on the image's PATH
// A cluster pod's /state and /output, each a tmpfs of this size (counted in the pod's memory).
inline constexpr int kClusterScratchMb = 256;
inline constexpr const char* kEgressSocketInSandbox = "/opt/warren/egress.sock";
inline constexpr const char* kEgressAuthorityInSandbox = "/opt/warren/egress-ca.pem";
inline constexpr const char* kAuthorityBundleInSandbox = "/opt/warren/ca-bundle.pem";
inline constexpr const char* kModelSocketInSandbox = "/opt/warren/model.sock";
inline constexpr const char* kChannelDirInSandbox = "/opt/warren/channel";
inline constexpr const char* kSkillsDirInSandbox = "/opt/warren/skills";
// The sandbox's path of the user's i-th skills folder.
std::string userSkillsInSandbox(std::size_t index);
inline constexpr const char* kChannelSocketName = "agent.sock"; // in the channel directory
inline constexpr const char* kChannelTokenName = "token";
// A CLI agent's sandbox never caps a process's address space below this where its memory limit falls back
// to RLIMIT_AS (no memory cgroup): Claude Code's runtime needs about 3 GiB of it to run at all.
inline constexpr int kCliAddressSpaceFloorMb = 8192;
inline constexpr int kEgressPort = 3128; // where the agent's forwarder listens, on the sandbox's 127.0.0.1

std::vector<nlohmann::json> agentProfileLayers(const AgentSandboxInput& input);
// warren-agent serve with the sandbox's paths; with a channel directory: connecting to the socket in it; on a
// cluster: the image's agent, connecting to the cluster address.
std::vector<std::string> agentCommand(const AgentSandboxInput& input);
const nlohmann::json& strictProfileJson();

} // namespace warren::control
