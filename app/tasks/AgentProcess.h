#pragma once
// The agent's sandbox as TaskRunner sees it, whichever backend runs it: started with the agent's stdin,
// stdout and stderr on the runner's pipes, watched through a descriptor that becomes readable when it ends,
// stopped gracefully (terminate: SIGTERM to the agent) or at once (kill). bubblewrap runs it through
// SandboxProcess; Docker and Podman through the container launcher, which removes the container in every
// case. Everything else about a task (the protocol, the stops' order, timeouts, the record) is the runner's
// and the same for every backend.

#include "Launcher.h"
#include "ProtectedPaths.h"
#include "Result.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

struct AgentLaunch {
    std::string backend = "bwrap";      // TaskSpec::backend: "bwrap", "docker" or "podman"
    std::string image;                  // docker and podman: the image the agent runs on
    std::string taskId;                 // labels the container
    std::vector<nlohmann::json> layers; // agentProfileLayers()
    // The task's own directories (state, output, memories). When Warren runs as root they are handed to the
    // uid the sandbox writes as, which differs between backends: a task moved from one to the other must
    // still be able to read and replace its checkpoint.
    std::vector<std::string> ownedDirs;
    sandbox::LaunchOptions stdio;
};

class AgentProcess {
public:
    // Prepares and starts the sandbox. An error is complete: what failed and what to do (the container
    // backend's preflight report, or `warren doctor`).
    static Result<std::unique_ptr<AgentProcess>> start(const AgentLaunch& launch);

    virtual ~AgentProcess() = default; // kills and removes a sandbox still running

    virtual int pidfd() const = 0; // readable when the sandbox has ended
    // bwrap's status pipe (see SandboxProcess::statusFd); -1 when the backend has none.
    virtual int statusFd() const { return -1; }
    virtual void readStatus() {}
    // Once pidfd() is readable: how the sandbox ended (nullopt only if that cannot be told).
    virtual std::optional<sandbox::SandboxExit> exitStatus() = 0;
    virtual void terminate() = 0; // SIGTERM to the agent
    virtual void kill() = 0;      // everything of the sandbox, now
    // Why the sandbox could not start the agent (SetupFailed): what this host lacks for the backend.
    virtual std::string setupFailureReport() const = 0;

    const std::string& workspaceSource() const { return m_workspaceSource; } // canonical
    const sandbox::ProtectionPlan& protection() const { return m_protection; }

protected:
    AgentProcess(std::string workspaceSource, sandbox::ProtectionPlan protection)
        : m_workspaceSource(std::move(workspaceSource)), m_protection(std::move(protection)) {}

private:
    std::string m_workspaceSource;
    sandbox::ProtectionPlan m_protection;
};

} // namespace warren::control
