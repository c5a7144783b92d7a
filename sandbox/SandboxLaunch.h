#pragma once
// The one way to run a command in a sandbox, for warren-sandbox and the control plane alike. A launch is
// two steps: prepareLaunch() decides everything and checks the host (for a container backend: the preflight,
// the sweep of containers a killed launcher left, a private directory for its files), so that --explain
// shows exactly what a run would start; then start() runs it. Between the two the caller may act on what
// the sandbox will write as (hostOwner()), before anything runs.
//
// Each backend is one implementation (bwrap/BwrapSandbox, container/ContainerSandbox, pod/PodmanPodSandbox,
// cluster/ClusterSandbox), chosen in PrepareLaunch.cpp; another backend is one more.

#include "common/Result.h"
#include "sandbox/Backend.h"
#include "sandbox/RunningSandbox.h"
#include "sandbox/bwrap/Launcher.h"
#include "sandbox/cluster/ControlPlanePeer.h"
#include "sandbox/container/DockerCommand.h"
#include "sandbox/policy/SandboxProfile.h"

#include <chrono>
#include <csignal>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

// The label naming a control plane's task on what its sandbox makes. The kubernetes backend deletes what
// carries its task's before making that task's objects again (ClusterSandbox).
inline constexpr const char* kTaskLabel = "warren.task";

struct SandboxRequest {
    Backend backend = Backend::Bwrap;
    SandboxProfile profile; // resolved
    std::vector<std::string> command;
    std::map<std::string, std::string> hostEnv; // for the profile's env_passthrough
    LaunchOptions stdio;                        // -1: the caller's (kubernetes: stderr only, the log's tail)
    // An --explain: decide and describe, but create nothing (no cgroup, no files, no engine asked).
    bool explainOnly = false;
    // The command reaps orphans and stops on SIGTERM by itself (warren-agent): it runs as the sandbox's pid 1,
    // so that no other process of the sandbox holds its stdio, which a process of the same uid could reopen
    // through /proc/1/fd (bwrap's reaper, podman's --init). The kubernetes backend's pid 1 is the pod's pause.
    bool commandIsInit = false;

    // Container backends.
    std::string image = kDefaultContainerImage;
    std::map<std::string, std::string> labels; // more --label NAME=VALUE (e.g. the task id)
    // What the engine's run client gets when the launcher dies, which it passes on to the command (an agent
    // takes SIGHUP as "pause, resumable", where SIGTERM would cancel its task). bwrap's sandbox is killed.
    int launcherDeathSignal = SIGTERM;
    // podman, rootful, run by root: how many warm containers of this launch's shape to keep ready for the
    // next launches of it (container/WarmPool.h); 0: none. warmWaiter is the host's warren-agent, which a
    // warm container runs until claimed (`await-claim`). A launch claims a warm container of its shape
    // whenever the pool holds one.
    int warm = 0;
    std::string warmWaiter;

    // The kubernetes backend: the kubeconfig (nullopt: kubectl's order, kube::loadKubeConfig) and the
    // namespace (empty: the kubeconfig's), and the runtime class (e.g. gvisor; empty: the cluster's default).
    std::optional<std::string> kubeconfig;
    std::string kubeNamespace;
    std::string runtimeClass;
    // How long agent-sandbox's controller may take to make a Sandbox's pod before the launch fails (SetupFailed);
    // nullopt: the cluster client's default (kube::KubeClusterOptions::podAppearTimeout).
    std::optional<std::chrono::milliseconds> kubePodAppearTimeout;
    // A control plane's pod: the task token, as a Secret the pod reads at tokenDir/token, and who the pod may
    // reach (its NetworkPolicy; unset: nothing). Empty token: no Secret.
    std::string taskToken;
    std::string tokenDir;
    std::optional<ControlPlanePeer> controlPlane;
    // The kubernetes backend: the running pod of this task (labelled warren.task) that a control plane killed
    // before its end left is followed as this launch's rather than replaced (its agent reconnects to the
    // control plane that took the task over); when there is none, the launch makes its own.
    bool rejoin = false;
};

// Who owns, on the host, what the sandbox writes in its binds.
struct HostOwner {
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
};

class SandboxLaunch {
public:
    SandboxLaunch() = default;
    SandboxLaunch(const SandboxLaunch&) = delete;
    SandboxLaunch& operator=(const SandboxLaunch&) = delete;
    virtual ~SandboxLaunch() = default; // removes what preparing made, unless started

    // What --explain prints: the resolved profile, what is enforced how, the command line.
    virtual std::string explain() const = 0;
    // nullopt when the backend cannot tell (rootless docker writes as a subordinate uid).
    virtual std::optional<HostOwner> hostOwner() const = 0;
    // Starts the command; the running sandbox takes over the clean-up. Call once, from a thread that lives
    // as long as the sandbox should (see SandboxProcess::start).
    virtual Result<std::unique_ptr<RunningSandbox>> start() = 0;
};

// An error says what failed and what to do (a failed preflight's checks with their fixes).
Result<std::unique_ptr<SandboxLaunch>> prepareLaunch(SandboxRequest request);

} // namespace warren::sandbox
