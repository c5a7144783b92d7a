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
#include "sandbox/bwrap/Launcher.h"
#include "sandbox/ProcessOwner.h"
#include "sandbox/container/DockerCommand.h"
#include "sandbox/policy/DockerSeccomp.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

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
    bool commandIsInit = false;                 // SandboxRequest::commandIsInit: no --init
    std::optional<DockerRequest::Warm> warm;    // a warm container's shape (WarmPool)
};

struct PreparedContainer {
    SandboxProfile profile; // with the workspace source canonicalised
    ProtectionPlan protection;
    DockerSeccompProfile seccomp;
    DockerRequest request;
    DockerCommand command;
};

// What every container launch reads of the profile and the host before translating: the workspace made
// canonical, its protected paths, the seccomp table as an OCI profile, and the workspace's owner.
struct ContainerPolicy {
    SandboxProfile profile;
    ProtectionPlan protection;
    DockerSeccompProfile seccomp;
    std::uint32_t workspaceOwnerUid = 0;
    std::uint32_t workspaceOwnerGid = 0;
};
Result<ContainerPolicy> resolveContainerPolicy(SandboxProfile profile);

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
// Detaches what is mounted in it (a workspace view, a warm container's slots and claim directory) before
// removing anything, and never removes through a mount.
void removeContainerScratch(const ContainerScratch& scratch);

// Pure: the names in `ps` output (one "NAME\tOWNER" per line, OWNER a processOwner()) whose owner ran on
// `machine` and is gone (ownerGone).
std::vector<std::string> orphanedContainers(const std::string& psOutput, const std::string& machine,
                                            const std::function<std::string(pid_t)>& startTimeOf);
// Removes the scratch directories of launchers that are gone, detaching their workspace views.
void sweepOrphanedScratch();
// Removes the containers a killed launcher left behind on this machine, and its scratch directories.
// Returns how many containers it removed.
int sweepOrphanedContainers(ContainerEngine engine, const std::string& enginePath);

// Writes what a container's command names before the engine starts: the seccomp profile (0600) and the other
// files (0444), and for a workspace view, the protected paths' placeholders through the real workspace, then
// the view itself.
Status writeContainerFiles(const std::string& seccompPath, const std::string& seccompJson,
                           const std::vector<DockerDataFile>& files, const SandboxProfile& profile,
                           const ProtectionPlan& protection, const std::optional<IdmappedView>& view);
// The engine's program: override when set, else its name found on PATH (the bare name when not found).
std::string containerEnginePath(ContainerEngine engine, const std::string& override = {});

class ContainerProcess {
public:
    // Writes the files, then starts the engine. The run client gets the caller's stdin, stdout and stderr,
    // or the descriptors in options (its --interactive attaches them to the command in the container).
    // launcherDeathSignal: what the client gets when the launcher dies, which it passes on to the command
    // (an agent takes SIGHUP as "pause, resumable", where SIGTERM would cancel its task).
    static Result<ContainerProcess> start(const PreparedContainer& container, const LaunchOptions& options = {},
                                          int launcherDeathSignal = SIGTERM);
    // The engine's client `argv` (argv[0] a path), which runs container `containerName` attached; `remove` are
    // the engine commands that remove what the run made, run after a stop (the kill is by containerName), and
    // with removeAfterExit also when the container ended by itself (an engine's --rm does that for a run).
    // With removeAfterExit a janitor (a shell in a session of its own) waits on a pipe whose other end only
    // this process holds: if the launcher dies (kill -9), it waits up to a minute for the container to end
    // (its command got launcherDeathSignal) and runs the remove commands, so nothing is left behind.
    static Result<ContainerProcess> spawn(std::vector<std::string> argv, std::string containerName,
                                          std::vector<std::vector<std::string>> remove, bool removeAfterExit,
                                          const LaunchOptions& options, int launcherDeathSignal);

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
    void removeContainer();
    Status startJanitor();
    void dismissJanitor(); // the removal is done: the janitor goes without doing anything
    SandboxExit reap(int waitStatus);

    std::string m_engine;
    std::string m_name;
    std::vector<std::vector<std::string>> m_remove;
    bool m_removeAfterExit = false;
    bool m_removed = false;
    pid_t m_pid = -1;
    int m_pidfd = -1;
    pid_t m_janitor = -1;
    int m_janitorPipe = -1; // its write end: closed by the kernel when the launcher dies
    bool m_killed = false;
    bool m_timedOut = false;
    std::optional<SandboxExit> m_exit;
};

} // namespace warren::sandbox
