#pragma once
// Runs a profile in a Docker or Podman container: the container backend's counterpart of SandboxSetup and
// SandboxProcess. DockerCommand decides the command line; this writes the files it names into a private
// directory, starts the engine's `run` client with the caller's stdin, stdout and stderr, and makes sure the
// container is gone afterwards: the engine's --rm on a normal exit, kill and `rm -f` by name on a timeout or
// a stop, and for a launcher that was itself killed, a sweep at the next start that removes every Warren
// container whose owning process no longer exists (the owner is a label on the container).
//
// The engine is whatever `docker`/`podman` on PATH talks to: DOCKER_HOST, contexts and CONTAINERS_CONF are
// the user's, never overridden.

#include "common/Result.h"
#include "sandbox/DockerCommand.h"
#include "sandbox/DockerSeccomp.h"
#include "sandbox/Launcher.h"
#include "sandbox/ProtectedPaths.h"
#include "sandbox/SandboxProfile.h"

#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warren::sandbox {

// The label naming the process that owns a container: "MACHINE:PID:STARTTIME" (the start time tells a
// reused pid from the owner).
inline constexpr const char* kContainerOwnerLabel = "warren.owner";

struct ContainerOptions {
    ContainerEngine engine = ContainerEngine::Podman;
    std::string enginePath; // empty: the engine's name, searched on PATH
    std::string image = kDefaultContainerImage;
    std::vector<std::string> command;
    std::map<std::string, std::string> hostEnv;
    std::map<std::string, std::string> labels; // besides the owner
    bool rootlessEngine = false;                // as the engine reported it (preflight)
};

struct PreparedContainer {
    SandboxProfile profile; // with the workspace source canonicalised
    ProtectionPlan protection;
    DockerSeccompProfile seccomp;
    DockerRequest request;
    DockerCommand command;
};

// Decides everything and touches nothing: the files are written by ContainerProcess::start() into
// dataDir, which holds nothing else. Used by --explain too, so both show and run the same command.
Result<PreparedContainer> prepareContainer(SandboxProfile profile, const ContainerOptions& options,
                                           const std::string& dataDir, const std::string& containerName);

// A new private (0700) directory for one container's files, $XDG_RUNTIME_DIR or
// /tmp/warren-container-PID-XXXXXX (the sweep removes those of launchers that are gone), which also holds the
// mount point of a workspace view: removing the directory detaches the view first. The container's name is
// derived from it, so both are unique.
struct ContainerScratch {
    std::string dataDir;
    std::string containerName; // "warren-PID-XXXXXX"
};
Result<ContainerScratch> makeContainerScratch();
void removeContainerScratch(const ContainerScratch& scratch);

// This process as kContainerOwnerLabel's value.
std::string containerOwner();
// Pure: the names in `ps` output (one "NAME\tOWNER" per line) whose owner ran on `machine` and is gone.
// startTimeOf(pid) is the process's start time, or empty when no such process exists.
std::vector<std::string> orphanedContainers(const std::string& psOutput, const std::string& machine,
                                            const std::function<std::string(pid_t)>& startTimeOf);
// Removes the containers a killed launcher left behind on this machine. Returns how many it removed.
int sweepOrphanedContainers(ContainerEngine engine, const std::string& enginePath);

class ContainerProcess {
public:
    // Writes the files, then starts the engine. The run client gets the caller's stdin, stdout and stderr,
    // or the descriptors in options (its --interactive attaches them to the command in the container).
    // launcherDeathSignal: what the client gets when the launcher dies, which it passes on to the command
    // (an agent takes SIGHUP as "pause, resumable", where SIGTERM would cancel its task).
    static Result<ContainerProcess> start(const PreparedContainer& container, const LaunchOptions& options = {},
                                          int launcherDeathSignal = SIGTERM);

    ContainerProcess(ContainerProcess&& other) noexcept;
    ContainerProcess& operator=(ContainerProcess&&) = delete;
    ContainerProcess(const ContainerProcess&) = delete;
    ContainerProcess& operator=(const ContainerProcess&) = delete;
    ~ContainerProcess(); // stops and removes a container still running

    int pidfd() const { return m_pidfd; } // readable when the run client exits: for an event loop

    // As SandboxProcess::wait(): the container ended (the engine's status 125 is SetupFailed), the timeout
    // passed (the container is killed and removed: TimedOut), or interruptFd became readable (nullopt).
    std::optional<SandboxExit> wait(std::optional<std::chrono::milliseconds> timeout, int interruptFd = -1);
    // Kills the container and removes it, then ends the run client; wait() then reports Killed.
    void kill();
    // SIGTERM to the container's command (through the engine, by name: its --init passes it on), a graceful
    // stop before kill(). Blocks while the engine's client runs (well under a second).
    void terminate();

private:
    ContainerProcess() = default;
    void stopContainer();
    SandboxExit reap(int waitStatus);

    std::string m_engine;
    std::string m_name;
    pid_t m_pid = -1;
    int m_pidfd = -1;
    bool m_killed = false;
    bool m_timedOut = false;
    std::optional<SandboxExit> m_exit;
};

} // namespace warren::sandbox
