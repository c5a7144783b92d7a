#pragma once
// The agent's sandbox as TaskRunner starts it: `warren-agent serve` through the sandbox library's one
// launch (SandboxLaunch), with the agent's stdin, stdout and stderr on the runner's pipes. What is the
// control plane's own is only this: the task's directories handed to the uid the sandbox writes as, and
// the messages saying what to do when it cannot start.

#include "common/Result.h"
#include "sandbox/Backend.h"
#include "sandbox/RunningSandbox.h"
#include "sandbox/bwrap/Launcher.h"
#include "sandbox/cluster/ControlPlanePeer.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

struct AgentLaunch {
    sandbox::Backend backend = sandbox::Backend::Bwrap; // TaskSpec::backend
    std::string image;                                  // docker and podman: the image the agent runs on
    std::string taskId;                                 // labels the container (warren.task)
    std::map<std::string, std::string> labels;          // more labels (warrend: the owner's tenant and user)
    std::vector<std::string> command;                   // agentCommand()
    std::vector<nlohmann::json> layers;                 // agentProfileLayers()
    // The task's own directories (state, output, memories). When Warren runs as root they are handed to the
    // uid the sandbox writes as, which differs between backends: a task moved from one to the other must
    // still be able to read and replace its checkpoint.
    std::vector<std::string> ownedDirs;
    sandbox::LaunchOptions stdio;
    // A cluster's pod (kubernetes): the task token its Secret carries, read at tokenDir/token (set when the
    // token is issued), who the pod may reach (its NetworkPolicy), and its runtime class.
    std::string taskToken;
    std::string tokenDir;
    std::optional<sandbox::ControlPlanePeer> controlPlane;
    std::string runtimeClass;
    bool rejoin = false; // SandboxRequest::rejoin: a running pod of the task that a dead control plane left
    // podman: warm containers of this launch's shape to keep for the next ones, running warmWaiter (the
    // host's warren-agent) until claimed (SandboxRequest::warm).
    int warm = 0;
    std::string warmWaiter;
};

// Prepares and starts the sandbox. An error is complete: what failed and what to do (the container
// backend's preflight report, or `warren doctor`).
Result<std::unique_ptr<sandbox::RunningSandbox>> launchAgent(const AgentLaunch& launch);

} // namespace warren::control
