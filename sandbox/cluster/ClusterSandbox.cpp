#include "sandbox/cluster/ClusterSandbox.h"

#include "common/UniqueFd.h"
#include "sandbox/cluster/client/KubeCluster.h"
#include "sandbox/container/ContainerLauncher.h"
#include "sandbox/container/ContainerSandbox.h"
#include "sandbox/pod/KubeManifest.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <random>
#include <sstream>
#include <string_view>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>

namespace warren::sandbox {
namespace {

using nlohmann::json;
using Clock = kube::KubeCluster::Clock;

// How long terminate() gives the command between SIGTERM and SIGKILL, as `kubectl delete` would.
constexpr int kTerminateGraceSeconds = 10;
// How long deleting and checking every object may take beyond a grace period, before it is reported left.
constexpr std::chrono::seconds kRemovalDeadline{60};
// How much of the pod's log the launcher gets once its container has ended: an agent's last words, a
// command's last output; bounded, as the log is written in one piece to the launcher's stderr.
constexpr int kLogTailLines = 1000;
constexpr std::size_t kLogTailBytes = 64 * 1024;

// "warren-" and ten letters or digits: a DNS-1123 label no other launch picks.
std::string podName() {
    static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device random;
    std::uniform_int_distribution<std::size_t> pick(0, sizeof kAlphabet - 2);
    std::string name = "warren-";
    for (int i = 0; i < 10; ++i)
        name += kAlphabet[pick(random)];
    return name;
}

void signalFd(int fd) {
    const std::uint64_t one = 1;
    while (::write(fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

void drainFd(int fd) {
    std::uint64_t count = 0;
    while (::read(fd, &count, sizeof count) < 0 && errno == EINTR) {
    }
}

// All of text, or as much as the descriptor takes: a reader that went away loses the rest, nothing more.
void writeAll(int fd, std::string_view text) {
    while (fd >= 0 && !text.empty()) {
        const ssize_t written = ::write(fd, text.data(), text.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return;
        text.remove_prefix(static_cast<std::size_t>(written));
    }
}

// How the pod's end reads as a sandbox's exit. Without the container's exit code the command's status
// cannot be told (the pod was deleted or evicted before it said): SetupFailed, with the state in the report.
SandboxExit exitOf(const kube::PodState& state) {
    SandboxExit exit;
    exit.oomKilled = state.reason == "OOMKilled";
    if (state.reason == "DeadlineExceeded") { // activeDeadlineSeconds: the profile's timeout
        exit.reason = SandboxExit::Reason::TimedOut;
        exit.exitCode = state.exitCode.value_or(128 + SIGKILL);
    } else if (state.exitCode) {
        exit.reason = SandboxExit::Reason::Exited;
        exit.exitCode = *state.exitCode;
    } else {
        exit.reason = SandboxExit::Reason::SetupFailed;
    }
    return exit;
}

// A Secret as --explain shows it: its keys, never their values.
// The labels that select a task's objects, whichever launch of the task made them.
std::map<std::string, std::string> objectsOfTask(const std::string& taskId) {
    return {{kKubeManagedByLabel, "warren"}, {kTaskLabel, taskId}};
}

json redacted(json secret) {
    if (secret.contains("stringData"))
        for (auto& value : secret["stringData"])
            value = "(" + std::to_string(value.get<std::string>().size()) + " bytes, not shown)";
    return secret;
}

struct PreparedClusterPod {
    SandboxProfile profile; // with the workspace source canonicalised
    ProtectionPlan protection;
    DockerSeccompProfile seccomp;
    KubeRequest request;
    KubeManifests manifests;
    std::optional<kube::KubeConfig> config; // nullopt only for --explain, when it could not be loaded
    std::string configError;
    int stderrFd = -1; // the launcher's request: -1 its own
    std::optional<std::chrono::milliseconds> podAppearTimeout; // nullopt: the cluster client's default

    bool rejoin = false; // SandboxRequest::rejoin
    // The Sandbox where the cluster serves agent-sandbox's CRD (its pod has the same name), else the Pod; by
    // default the one this launch would create.
    std::string where(bool sandbox = false, const std::string& name = {}) const {
        return std::string(sandbox ? "Sandbox " : "Pod ") + request.namespaceName + "/" +
               (name.empty() ? request.name : name) +
               (config ? " through " + config->server + " (" + config->source + ")" : std::string());
    }
};

// The watcher owns the cluster client while it runs; terminate() and kill() only ask it, through m_wake.
class ClusterSandbox : public RunningSandbox {
public:
    ClusterSandbox(PreparedClusterPod prepared, std::unique_ptr<kube::KubeCluster> cluster, UniqueFd wake,
                   UniqueFd ended, UniqueFd output)
        : m_prepared(std::move(prepared)), m_cluster(std::move(cluster)), m_wake(std::move(wake)),
          m_ended(std::move(ended)), m_output(std::move(output)) {
        m_watcher = std::thread([this] { watch(); });
    }
    ~ClusterSandbox() override;

    Backend backend() const override { return Backend::Kubernetes; }
    const SandboxProfile& profile() const override { return m_prepared.profile; }
    const ProtectionPlan& protection() const override { return m_prepared.protection; }
    std::string commandLine() const override {
        return m_prepared.where() + ": " + shellCommandLine(m_prepared.request.command);
    }
    int pidfd() const override { return m_ended.get(); }
    std::optional<SandboxExit> wait(std::optional<std::chrono::milliseconds> timeout, int interruptFd) override;
    std::optional<SandboxExit> exitStatus() override;
    void terminate() override { ask(Request::Terminate); }
    void kill() override { ask(Request::Kill); }
    bool detach() override {
        m_detached = true;
        signalFd(m_wake.get());
        return true;
    }
    std::string setupFailureReport() const override { return m_report; }

private:
    enum class Request { None, Terminate, Kill };
    void ask(Request request);
    void watch();
    bool rejoin();
    bool removeLeftovers();
    bool create();
    Result<kube::KubeCluster::WaitResult> follow();
    void passLogOn();
    void finish();
    void stop(Request request);
    void remove(std::optional<int> gracePeriodSeconds, int interruptFd);
    // Once create() or rejoinLabelled() has run.
    std::string where() const { return m_prepared.where(m_cluster->usesSandboxCrd(), m_cluster->podName()); }
    void joinWatcher() {
        if (m_watcher.joinable())
            m_watcher.join();
    }

    PreparedClusterPod m_prepared;
    std::unique_ptr<kube::KubeCluster> m_cluster;
    UniqueFd m_wake;  // eventfd: terminate() or kill() asks the watcher to stop the pod
    UniqueFd m_ended; // eventfd: readable once the pod has ended and its objects are gone
    UniqueFd m_output; // the launcher's stderr, duplicated: the pod's log tail goes there; closed at the end
    std::atomic<Request> m_request{Request::None};
    std::atomic<bool> m_timedOut{false};
    std::atomic<bool> m_detached{false}; // detach(): the watcher stops leaving the pod running, deleting nothing
    std::thread m_watcher;
    // Written by the watcher; read only after joining it.
    SandboxExit m_exit;
    std::string m_report;
};

void ClusterSandbox::ask(Request request) {
    Request asked = m_request.load();
    while (asked < request && !m_request.compare_exchange_weak(asked, request)) {
    }
    signalFd(m_wake.get());
}

// Until the pod runs (or is stuck on its way), then until it ends; each wait from the last version seen.
Result<kube::KubeCluster::WaitResult> ClusterSandbox::follow() {
    using Goal = kube::KubeCluster::Goal;
    auto started = m_cluster->waitFor(Goal::Started, std::nullopt, m_wake.get());
    if (!started || started->stop != kube::KubeCluster::Stop::Reached ||
        started->state.progress == kube::PodProgress::Ended)
        return started;
    return m_cluster->waitFor(Goal::Ended, std::nullopt, m_wake.get());
}

// SandboxRequest::rejoin: the task's pod that a launcher killed with kill -9 left running is followed as this
// launch's (its agent reconnects to the control plane that took the task over), its objects deleted at the
// end as if this launch had made them. False when there is none to follow: the launch makes its own.
bool ClusterSandbox::rejoin() {
    const auto task = m_prepared.request.labels.find(kTaskLabel);
    if (!m_prepared.rejoin || task == m_prepared.request.labels.end())
        return false;
    auto rejoined = m_cluster->rejoinLabelled(objectsOfTask(task->second), m_wake.get());
    if (!rejoined) {
        writeAll(m_output.get(), "warren: could not look for a running pod of task " + task->second + " (" +
                                     rejoined.error().message + "); a new one is made\n");
        return false;
    }
    if (*rejoined)
        writeAll(m_output.get(), "warren: rejoined the " + where() +
                                     ", left running by an earlier run of task " + task->second + "\n");
    return *rejoined;
}

// A launcher killed with kill -9 (a control plane that crashed) could not delete its task's objects, and the
// pod may still run: before the task's objects are made again, what carries its label goes. Only for a
// task's sandbox: a request without the label (warren-sandbox's own runs) has nothing to find. False when
// the launch must stop (m_exit and m_report say why, or a stop was asked).
bool ClusterSandbox::removeLeftovers() {
    const auto task = m_prepared.request.labels.find(kTaskLabel);
    if (task == m_prepared.request.labels.end())
        return true;
    auto removed =
        m_cluster->removeLabelled(objectsOfTask(task->second), Clock::now() + kRemovalDeadline, m_wake.get());
    if (removed) {
        for (const auto& object : *removed)
            writeAll(m_output.get(), "warren: removed " + object + " left by an earlier run of task " +
                                         task->second + "\n");
        return true;
    }
    if (const Request asked = m_request.load(); asked != Request::None) {
        stop(asked);
    } else {
        m_exit.reason = SandboxExit::Reason::SetupFailed;
        m_report = "the kubernetes backend could not remove what an earlier run of task " + task->second +
                   " left in namespace " + m_prepared.request.namespaceName + ": " + removed.error().message;
    }
    return false;
}

// The pod's output is not streamed: once its container has ended, the tail of its log is the launcher's,
// on the stderr it gave, before the pod (and its log) is deleted. A log that cannot be read changes nothing
// of the exit: one line says so.
void ClusterSandbox::passLogOn() {
    if (!m_output.valid())
        return;
    auto log = m_cluster->podLog(kKubeContainerName, kLogTailLines, kLogTailBytes, m_wake.get());
    if (!log) {
        writeAll(m_output.get(), "warren: the pod's output is lost: " + log.error().message + "\n");
        return;
    }
    if (!log->empty() && log->back() != '\n')
        log->push_back('\n');
    writeAll(m_output.get(), *log);
}

// The launcher's stderr is closed before the end is told: a launcher that reads a pipe to its end (as a
// control plane drains its agent's stderr once the sandbox has exited) must not wait on this copy.
void ClusterSandbox::finish() {
    m_output.reset();
    signalFd(m_ended.get());
}

// The launch's own objects, what an earlier launcher left removed first. False when the launch must stop.
bool ClusterSandbox::create() {
    if (!removeLeftovers())
        return false;
    const KubeManifests& manifests = m_prepared.manifests;
    auto created = m_cluster->create(
        {manifests.pod, manifests.sandbox, manifests.secret, manifests.networkPolicy}, m_wake.get());
    if (created)
        return true;
    // create() has deleted what it had made
    if (const Request asked = m_request.load(); asked != Request::None) {
        stop(asked);
    } else {
        m_exit.reason = SandboxExit::Reason::SetupFailed;
        m_report = "the kubernetes backend could not create the " + where() + ": " + created.error().message;
    }
    return false;
}

void ClusterSandbox::watch() {
    // Here, not in start(): a slow or unreachable API server holds up this thread (up to a call's timeout for
    // each object), never the launcher's, which may be a control plane's event loop.
    if (!rejoin() && !create()) {
        finish();
        return;
    }
    auto followed = follow();
    if (!followed) {
        // The API server went away mid-watch: the command's fate is unknown, and the pod is not left to run.
        m_exit.reason = SandboxExit::Reason::SetupFailed;
        m_report = "lost sight of the " + where() + ": " + followed.error().message +
                   (m_cluster->usesSandboxCrd() ? "\nThe Sandbox and its pod were deleted." : "\nThe pod was deleted.");
        remove(0, -1);
    } else {
        switch (followed->stop) {
        case kube::KubeCluster::Stop::Reached:
            m_exit = exitOf(followed->state);
            if (followed->state.exitCode) // its container ran: the command's output, success or not
                passLogOn();
            if (m_exit.reason == SandboxExit::Reason::SetupFailed)
                m_report = "the " + where() + " ended without its container's exit status: " +
                           kube::describePodState(followed->state);
            remove(std::nullopt, -1);
            break;
        case kube::KubeCluster::Stop::Stuck:
            m_exit.reason = SandboxExit::Reason::SetupFailed;
            m_report = "the " + where() + " did not start: " + kube::describePodState(followed->state);
            if (followed->state.reason == "NoPod") // the Sandbox's controller, not the pod, is what failed
                m_report += "\nCheck that agent-sandbox's controller runs in the cluster and accepts the Sandbox "
                            "(kubectl describe sandbox -n " + m_prepared.request.namespaceName + " " +
                            m_prepared.request.name + "); the Sandbox was deleted.";
            else
                m_report += "\nCheck that the image " + m_prepared.request.image +
                            " can be pulled by the cluster's nodes and that they have room for the pod; " +
                            (m_cluster->usesSandboxCrd() ? "the Sandbox and its pod were" : "the pod was") +
                            " deleted.";
            remove(0, -1);
            break;
        case kube::KubeCluster::Stop::Interrupted:
        case kube::KubeCluster::Stop::TimedOut: // no deadline was given
            stop(m_request.load());
            break;
        }
    }
    finish();
}

// terminate(): the pod deleted with a grace period, which kill() may still cut short; kill(): at once.
void ClusterSandbox::stop(Request request) {
    drainFd(m_wake.get());
    if (m_detached) { // the pod runs on for the task's next launch, which deletes its objects at its end
        m_cluster->release();
        m_exit.reason = SandboxExit::Reason::Killed;
        return;
    }
    if (request == Request::Terminate) {
        m_exit.reason = SandboxExit::Reason::Signaled;
        m_exit.exitCode = 128 + SIGTERM;
        remove(kTerminateGraceSeconds, m_wake.get());
        if (m_cluster->leftBehind().empty())
            return;
    }
    m_exit.reason = SandboxExit::Reason::Killed;
    m_exit.exitCode = 128 + SIGKILL;
    remove(0, -1);
}

void ClusterSandbox::remove(std::optional<int> gracePeriodSeconds, int interruptFd) {
    const auto deadline = Clock::now() + std::chrono::seconds(gracePeriodSeconds.value_or(0)) + kRemovalDeadline;
    if (auto removed = m_cluster->removeAll(gracePeriodSeconds, deadline, interruptFd); !removed && interruptFd < 0)
        m_report += (m_report.empty() ? "" : "\n") + removed.error().message;
}

ClusterSandbox::~ClusterSandbox() {
    ask(Request::Kill);
    joinWatcher();
    if (m_cluster->leftBehind().empty())
        return;
    if (auto removed = m_cluster->removeAll(0, Clock::now() + kRemovalDeadline); !removed)
        std::cerr << "warren: could not delete from the cluster: " << removed.error().message << "\n";
}

std::optional<SandboxExit> ClusterSandbox::wait(std::optional<std::chrono::milliseconds> timeout, int interruptFd) {
    const auto deadline = timeout ? std::chrono::steady_clock::now() + *timeout
                                  : std::chrono::steady_clock::time_point::max();
    while (true) {
        int waitMs = -1;
        if (timeout && !m_timedOut) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            waitMs = static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()));
        }
        pollfd fds[2] = {{m_ended.get(), POLLIN, 0}, {interruptFd, POLLIN, 0}};
        const int ready = ::poll(fds, interruptFd >= 0 ? 2 : 1, waitMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready > 0 && (fds[0].revents & POLLIN))
            return exitStatus();
        if (ready > 0 && interruptFd >= 0 && fds[1].revents)
            return std::nullopt;
        if (ready == 0) { // the deadline
            m_timedOut = true;
            kill();
        }
    }
}

std::optional<SandboxExit> ClusterSandbox::exitStatus() {
    joinWatcher();
    SandboxExit exit = m_exit;
    if (m_timedOut && exit.reason == SandboxExit::Reason::Killed)
        exit.reason = SandboxExit::Reason::TimedOut;
    return exit;
}

class ClusterLaunch : public SandboxLaunch {
public:
    explicit ClusterLaunch(PreparedClusterPod prepared) : m_prepared(std::move(prepared)) {}

    std::string explain() const override;
    std::optional<HostOwner> hostOwner() const override { return std::nullopt; } // nothing on this host
    Result<std::unique_ptr<RunningSandbox>> start() override;

private:
    PreparedClusterPod m_prepared;
};

std::string ClusterLaunch::explain() const {
    const PreparedClusterPod& pod = m_prepared;
    std::ostringstream out;
    out << "# Resolved profile\n" << pod.profile.toJson().dump(2) << "\n\n# Backend\n- kubernetes: the objects below, ";
    if (pod.config)
        out << "created through the API of " << pod.config->server << " (from " << pod.config->source
            << "), in namespace " << pod.request.namespaceName;
    else
        out << "for a cluster not known here (" << pod.configError << "), in namespace "
            << pod.request.namespaceName;
    out << "; image " << pod.request.image << "\n";
    out << "- the Pod's place: where the cluster serves agents.x-k8s.io/v1beta1 (agent-sandbox's CRD), a Sandbox "
        << pod.request.name << " is created instead, with the pod's spec as its podTemplate, and its controller makes "
           "the pod of that name (deleted with the Sandbox); elsewhere the Pod itself\n";
    explainList(out, "Not enforced by the Pod as the profile says", pod.manifests.notEnforced);
    explainList(out, "Not enforced by the container runtime's seccomp as by the bwrap filter", pod.seccomp.differences);
    std::vector<std::string> notes = pod.manifests.notes;
    notes.insert(notes.begin(), pod.request.user.note);
    notes.push_back("seccomp: every node must hold the profile as " + pod.request.seccompProfile +
                    " under its kubelet's seccomp root (" + std::to_string(pod.seccomp.json.size()) +
                    " bytes, the same table as the bwrap filter); a pod whose profile is missing does not start");
    notes.push_back("no stdin, and the command's output is not streamed: once its container has ended, the last " +
                    std::to_string(kLogTailLines) + " lines of the pod's log (at most " +
                    std::to_string(kLogTailBytes / 1024) +
                    " KiB, stdout and stderr together) are written to the launcher's stderr");
    if (pod.profile.limits.timeoutSec)
        notes.push_back("limits.timeout_sec: the pod's activeDeadlineSeconds, and the launcher deletes the pod at "
                        "its deadline");
    explainList(out, "Enforced in another way than under bwrap", notes);
    out << "\n# Protected paths in the workspace\n";
    for (const auto& entry : pod.protection.entries)
        out << "- " << entry.relative << ": " << protectionKindName(entry.kind) << "\n";
    out << "\n# Objects created, in this order, and deleted when the sandbox ends\n"
        << kubeYaml({redacted(pod.manifests.secret), pod.manifests.networkPolicy, pod.manifests.pod});
    return out.str();
}

Result<std::unique_ptr<RunningSandbox>> ClusterLaunch::start() {
    if (!m_prepared.config)
        return makeError(ErrorCode::NotFound, m_prepared.configError);
    UniqueFd wake(::eventfd(0, EFD_CLOEXEC)), ended(::eventfd(0, EFD_CLOEXEC));
    if (!wake.valid() || !ended.valid())
        return makeError(ErrorCode::System, std::string("cannot make an eventfd: ") + std::strerror(errno));
    kube::KubeClusterOptions options;
    options.config = *m_prepared.config;
    options.namespaceName = m_prepared.request.namespaceName;
    // agent-sandbox's Sandbox where the cluster serves its CRD (its controller makes the pod), else the Pod.
    options.useSandboxCrd = true;
    if (m_prepared.podAppearTimeout)
        options.podAppearTimeout = *m_prepared.podAppearTimeout;
    auto cluster = kube::KubeCluster::connect(options);
    if (!cluster)
        return cluster.error();
    // The stderr the launcher gave, or its own (-1, as the other backends' commands inherit it), duplicated
    // now: a caller may close its copy once started. A launcher without a stderr gets no log.
    const int stderrFd = m_prepared.stderrFd >= 0 ? m_prepared.stderrFd : STDERR_FILENO;
    UniqueFd output(::fcntl(stderrFd, F_DUPFD_CLOEXEC, 0));
    return std::unique_ptr<RunningSandbox>(new ClusterSandbox(std::move(m_prepared), std::move(*cluster),
                                                              std::move(wake), std::move(ended), std::move(output)));
}

Result<kube::KubeConfig> clusterConfig(const SandboxRequest& request) {
    if (request.kubeconfig)
        return kube::loadKubeConfigFile(*request.kubeconfig);
    return kube::loadKubeConfig();
}

} // namespace

Result<std::unique_ptr<SandboxLaunch>> prepareClusterLaunch(SandboxRequest request) {
    PreparedClusterPod prepared;
    auto config = clusterConfig(request);
    if (config)
        prepared.config = std::move(*config);
    else if (!request.explainOnly)
        return makeError(config.error().code, "the kubernetes backend cannot find its cluster: " +
                                                  config.error().message +
                                                  "\nPass --kubeconfig FILE, or set KUBECONFIG.");
    else
        prepared.configError = config.error().message;

    auto policy = resolveContainerPolicy(std::move(request.profile));
    if (!policy)
        return policy.error();
    // hostDataDir and workspaceHostPath stay empty: the cluster variant of the manifests.
    KubeRequest& pod = prepared.request;
    pod.name = podName();
    pod.namespaceName = !request.kubeNamespace.empty() ? request.kubeNamespace
                        : prepared.config                ? prepared.config->namespaceName
                                                         : std::string();
    if (pod.namespaceName.empty())
        pod.namespaceName = "default";
    prepared.stderrFd = request.stdio.stderrFd;
    prepared.podAppearTimeout = request.kubePodAppearTimeout;
    prepared.rejoin = request.rejoin;
    pod.image = request.image;
    pod.command = request.command;
    pod.labels = request.labels;
    pod.hostEnv = request.hostEnv;
    pod.seccompProfile = kubeSeccompProfileName(policy->seccomp.json);
    pod.runtimeClass = request.runtimeClass;
    pod.taskToken = request.taskToken;
    pod.tokenDir = request.tokenDir;
    pod.controlPlane = request.controlPlane;
    // On a node, not this host: the profile's own user, whose files are the pod's alone.
    pod.user.uid = policy->profile.user.uid;
    pod.user.gid = policy->profile.user.gid;
    pod.user.note = "user: the profile's uid " + std::to_string(pod.user.uid) +
                    " on the node; nothing of this host is mounted, so no file of it is written";
    pod.protection = policy->protection;
    auto manifests = buildKubeManifests(policy->profile, pod);
    if (!manifests)
        return manifests.error();
    prepared.manifests = std::move(*manifests);
    prepared.profile = std::move(policy->profile);
    prepared.protection = std::move(policy->protection);
    prepared.seccomp = std::move(policy->seccomp);
    return std::unique_ptr<SandboxLaunch>(new ClusterLaunch(std::move(prepared)));
}

} // namespace warren::sandbox
