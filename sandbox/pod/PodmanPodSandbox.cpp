#include "sandbox/pod/PodmanPodSandbox.h"

#include "sandbox/Preflight.h"
#include "sandbox/container/ContainerLauncher.h"
#include "sandbox/container/KeptPreflight.h"
#include "sandbox/container/ContainerSandbox.h"
#include "sandbox/pod/KubeManifest.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <unistd.h>

namespace warren::sandbox {
namespace {

using nlohmann::json;

// The owner of a pod and its volumes, as three label values (a label value cannot hold the ':' of
// kContainerOwnerLabel's): the machine's hash, the launcher's pid and its start time.
constexpr const char* kOwnerMachineLabel = "warren.owner-machine";
constexpr const char* kOwnerPidLabel = "warren.owner-pid";
constexpr const char* kOwnerStartLabel = "warren.owner-start";
constexpr const char* kPodFile = "pod.yaml";

std::string machineLabel() { return contentHash(thisMachine()); }

std::map<std::string, std::string> ownerLabels() {
    return {{kContainerLabel, "1"},
            {kOwnerMachineLabel, machineLabel()},
            {kOwnerPidLabel, std::to_string(getpid())},
            {kOwnerStartLabel, processStartTime(getpid())}};
}

// "NAME\tMACHINE:PID:START" per line, as orphanedContainers() reads them.
std::string ownerListingFormat(const char* nameField) {
    return std::string("{{") + nameField + "}}\t{{index .Labels \"" + kOwnerMachineLabel + "\"}}:{{index .Labels \"" +
           kOwnerPidLabel + "\"}}:{{index .Labels \"" + kOwnerStartLabel + "\"}}";
}

// Pods and volumes a killed launcher of this machine left behind.
void sweepOrphanedPods(const std::string& podman) {
    const std::string filter = std::string("label=") + kContainerLabel + "=1";
    const ProcessOutcome pods =
        runCapturing({podman, "pod", "ps", "--filter", filter, "--format", ownerListingFormat(".Name")}, false);
    if (succeeded(pods)) {
        for (const auto& name : orphanedContainers(pods.output, machineLabel(), processStartTime))
            runCapturing({podman, "pod", "rm", "--force", "--time", "0", name});
        sweepPlaceholderRecords({Backend::Kube}); // their pods are gone now
    }
    const ProcessOutcome volumes =
        runCapturing({podman, "volume", "ls", "--filter", filter, "--format", ownerListingFormat(".Name")}, false);
    if (succeeded(volumes))
        for (const auto& name : orphanedContainers(volumes.output, machineLabel(), processStartTime))
            runCapturing({podman, "volume", "rm", "--force", name});
    sweepOrphanedScratch();
}

// The emptyDir volumes of the pod, which the launcher creates as tmpfs volumes before playing it.
std::vector<std::string> memoryVolumes(const json& pod) {
    std::vector<std::string> names;
    for (const auto& volume : pod["spec"]["volumes"])
        if (volume.contains("emptyDir"))
            names.push_back(volume["name"].get<std::string>());
    return names;
}

// What a Pod cannot say, written into the pod's cgroup under cgroup v1's controllers or the unified hierarchy:
// the first of a limit's files that exists is written.
struct CgroupLimit {
    std::vector<std::pair<std::string, std::string>> files; // file, value
    std::string what;
    bool required; // false: only where the host accounts it (swap)
};

std::vector<CgroupLimit> podCgroupLimits(const std::string& cgroupPath, const SandboxLimits& limits) {
    const std::string v1 = "/sys/fs/cgroup/", v2 = "/sys/fs/cgroup" + cgroupPath + "/";
    std::vector<CgroupLimit> result;
    if (limits.pids)
        result.push_back({{{v1 + "pids" + cgroupPath + "/pids.max", std::to_string(limits.pids)},
                           {v2 + "pids.max", std::to_string(limits.pids)}},
                          "the pids limit",
                          true});
    if (limits.memoryMb) {
        // v1 takes memory and swap together, at most the memory limit, which the pod's cgroup must have first.
        const std::string bytes = std::to_string(mebibytesToBytes(limits.memoryMb));
        result.push_back({{{v1 + "memory" + cgroupPath + "/memory.limit_in_bytes", bytes}}, "the memory limit", false});
        result.push_back({{{v1 + "memory" + cgroupPath + "/memory.memsw.limit_in_bytes", bytes},
                           {v2 + "memory.swap.max", "0"}},
                          "the swap limit",
                          false});
    }
    return result;
}

Status writeCgroupLimit(const CgroupLimit& limit) {
    for (const auto& [file, value] : limit.files) {
        if (::access(file.c_str(), F_OK) != 0)
            continue;
        const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
        const bool written = fd >= 0 && ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
        const int error = errno;
        if (fd >= 0)
            ::close(fd);
        if (!written)
            return makeError(ErrorCode::System, "cannot set " + limit.what + " in " + file + ": " +
                                                    std::strerror(error));
        return Ok{};
    }
    if (!limit.required)
        return Ok{};
    return makeError(ErrorCode::Unsupported, "cannot set " + limit.what + ": the pod's cgroup has no " +
                                                 limit.files.front().first + " nor " + limit.files.back().first +
                                                 ". Run as root with the pids controller, or use --backend podman.");
}

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

struct PreparedPod {
    SandboxProfile profile; // with the workspace source canonicalised
    ProtectionPlan protection;
    DockerSeccompProfile seccomp;
    KubeRequest request;
    KubeManifests manifests;
    std::string podman;
    std::string dataDir;
    std::string image;

    std::string containerName() const { return request.name + "-" + kKubeContainerName; }
    std::vector<std::string> playCommand() const {
        std::vector<std::string> argv{podman, "kube", "play", "--start=false", "--network", "none",
                                      "--seccomp-profile-root", dataDir};
        if (request.user.keepId)
            argv.push_back("--userns=keep-id:uid=" + std::to_string(request.user.uid) +
                           ",gid=" + std::to_string(request.user.gid));
        argv.push_back(dataDir + "/" + kPodFile);
        return argv;
    }
    std::vector<std::string> volumeCommand(const std::string& name) const {
        std::vector<std::string> argv{podman, "volume", "create"};
        for (const auto& [label, value] : ownerLabels())
            argv.insert(argv.end(), {"--label", label + "=" + value});
        argv.insert(argv.end(), {"--opt", "type=tmpfs", "--opt", "device=tmpfs", "--opt", "o=nodev,nosuid", name});
        return argv;
    }
    std::vector<std::string> attachCommand() const { return {podman, "start", "--attach", containerName()}; }
    std::vector<std::vector<std::string>> removeCommands() const {
        std::vector<std::vector<std::string>> commands{{podman, "pod", "rm", "--force", "--time", "0", request.name}};
        for (const auto& volume : memoryVolumes(manifests.pod))
            commands.push_back({podman, "volume", "rm", "--force", volume});
        return commands;
    }
};

Result<PreparedPod> preparePod(SandboxProfile profile, const SandboxRequest& sandboxRequest, bool rootlessEngine,
                               std::string podman, const ContainerScratch& scratch) {
    auto policy = resolveContainerPolicy(std::move(profile));
    if (!policy)
        return policy.error();

    KubeRequest request;
    request.name = lowercase(scratch.containerName);
    request.image = sandboxRequest.image;
    request.command = sandboxRequest.command;
    request.labels = sandboxRequest.labels;
    for (const auto& [label, value] : ownerLabels())
        request.labels[label] = value;
    request.hostEnv = sandboxRequest.hostEnv;
    request.seccompProfile = kubeSeccompProfileName(policy->seccomp.json);
    const std::string viewPath = scratch.dataDir + "/" + kWorkspaceViewName;
    request.user = chooseContainerUser(policy->profile, {rootlessEngine, true, getuid(), getgid(),
                                                         policy->workspaceOwnerUid, policy->workspaceOwnerGid, viewPath});
    request.protection = policy->protection;
    request.hostDataDir = scratch.dataDir;
    request.workspaceHostPath = request.user.workspaceView ? viewPath : policy->profile.workspaceSource;
    auto manifests = buildKubeManifests(policy->profile, request);
    if (!manifests)
        return manifests.error();
    manifests->files.push_back({scratch.dataDir + "/" + kPodFile, kubeYaml({manifests->pod}), "the Pod"});
    return PreparedPod{std::move(policy->profile), std::move(policy->protection), std::move(policy->seccomp),
                       std::move(request), std::move(*manifests), std::move(podman), scratch.dataDir,
                       sandboxRequest.image};
}

class PodmanPodLaunch : public SandboxLaunch {
public:
    PodmanPodLaunch(PreparedPod prepared, ContainerScratch scratch, LaunchOptions stdio, int launcherDeathSignal)
        : m_prepared(std::move(prepared)), m_scratch(std::move(scratch)), m_stdio(stdio),
          m_launcherDeathSignal(launcherDeathSignal) {}
    ~PodmanPodLaunch() override {
        if (!m_started)
            removeContainerScratch(m_scratch);
    }

    std::string explain() const override;
    std::optional<HostOwner> hostOwner() const override {
        const ContainerUser& user = m_prepared.request.user;
        if (!user.hostOwnerUid || !user.hostOwnerGid)
            return std::nullopt;
        return HostOwner{*user.hostOwnerUid, *user.hostOwnerGid};
    }
    Result<std::unique_ptr<RunningSandbox>> start() override;

private:
    Status play();
    void undo();

    PreparedPod m_prepared;
    ContainerScratch m_scratch;
    PlaceholderRecord m_placeholders;
    LaunchOptions m_stdio;
    int m_launcherDeathSignal;
    bool m_started = false;
};

std::string PodmanPodLaunch::explain() const {
    const PreparedPod& pod = m_prepared;
    std::ostringstream out;
    out << "# Resolved profile\n"
        << pod.profile.toJson().dump(2) << "\n\n# Backend\n- kube: the Pod below, played by podman kube play, image "
        << pod.image << "\n";
    explainList(out, "Not enforced by the Pod as the profile says", pod.manifests.notEnforced);
    explainList(out, "Not enforced by the container runtime's seccomp as by the bwrap filter", pod.seccomp.differences);
    std::vector<std::string> notes = pod.manifests.notes;
    if (!pod.request.user.note.empty())
        notes.insert(notes.begin(), pod.request.user.note);
    notes.push_back("podman: seccomp from the pod's annotation, --network none, emptyDirs as tmpfs volumes of this "
                    "pod alone, the pids and swap limits in the pod's cgroup, the timeout by the launcher");
    explainList(out, "Enforced in another way than under bwrap", notes);
    out << "\n# Protected paths in " << pod.profile.workspaceSource << "\n";
    for (const auto& entry : pod.protection.entries)
        out << "- " << entry.relative << ": " << protectionKindName(entry.kind) << "\n";
    out << "\n# Files written before the engine starts\n- " << pod.dataDir << "/" << pod.request.seccompProfile
        << ": seccomp profile (" << pod.seccomp.json.size() << " bytes)\n";
    for (const auto& file : pod.manifests.files)
        out << "- " << file.hostPath << ": " << file.purpose << " (" << file.bytes.size() << " bytes)\n";
    out << "\n# Pod\n" << kubeYaml({pod.manifests.pod}) << "\n# Command lines\n";
    for (const auto& volume : memoryVolumes(pod.manifests.pod))
        out << shellCommandLine(pod.volumeCommand(volume)) << "\n";
    out << shellCommandLine(pod.playCommand()) << "\n" << shellCommandLine(pod.attachCommand()) << "\n";
    return out.str();
}

// Everything up to the command's start: files, volumes, the created pod, its cgroup's limits.
Status PodmanPodLaunch::play() {
    const PreparedPod& pod = m_prepared;
    if (auto ok = writeContainerFiles(pod.dataDir + "/" + pod.request.seccompProfile, pod.seccomp.json,
                                      pod.manifests.files, pod.profile, pod.protection, pod.request.user.workspaceView);
        !ok)
        return ok;
    for (const auto& volume : memoryVolumes(pod.manifests.pod))
        if (const ProcessOutcome made = runCapturing(pod.volumeCommand(volume)); !succeeded(made))
            return makeError(ErrorCode::System, "podman could not create the tmpfs volume " + volume + ": " +
                                                    describeOutcome(made));
    if (const ProcessOutcome played = runCapturing(pod.playCommand()); !succeeded(played))
        return makeError(ErrorCode::System, "podman kube play could not create the pod: " + describeOutcome(played));
    const ProcessOutcome cgroup =
        runCapturing({pod.podman, "pod", "inspect", pod.request.name, "--format", "{{.CgroupPath}}"}, false);
    std::string cgroupPath = cgroup.output;
    cgroupPath.erase(cgroupPath.find_last_not_of(" \n") + 1);
    if (!succeeded(cgroup) || cgroupPath.empty() || cgroupPath.front() != '/')
        return makeError(ErrorCode::System, "podman did not say where the pod's cgroup is: " + describeOutcome(cgroup));
    for (const auto& limit : podCgroupLimits(cgroupPath, pod.profile.limits))
        if (auto ok = writeCgroupLimit(limit); !ok)
            return ok;
    return Ok{};
}

void PodmanPodLaunch::undo() {
    for (const auto& command : m_prepared.removeCommands())
        runCapturing(command);
    m_placeholders.clear();
}

Result<std::unique_ptr<RunningSandbox>> PodmanPodLaunch::start() {
    // Recorded before podman makes any mount point in the workspace.
    auto placeholders =
        PlaceholderRecord::write(Backend::Kube, m_prepared.profile.workspaceSource, m_prepared.protection);
    if (!placeholders)
        return placeholders.error();
    m_placeholders = std::move(*placeholders);
    if (auto ok = play(); !ok) {
        undo();
        return ok.error();
    }
    auto process = ContainerProcess::spawn(m_prepared.attachCommand(), m_prepared.containerName(),
                                           m_prepared.removeCommands(), true, m_stdio, m_launcherDeathSignal);
    if (!process) {
        undo();
        return process.error();
    }
    m_started = true;
    return makeContainerSandbox(ContainerRun{Backend::Kube,
                                             std::move(m_prepared.profile),
                                             std::move(m_prepared.protection),
                                             shellCommandLine(m_prepared.playCommand()),
                                             ContainerEngine::Podman,
                                             m_prepared.image,
                                             std::move(m_scratch),
                                             std::move(m_placeholders),
                                             {}},
                                std::move(*process));
}

} // namespace

Result<std::unique_ptr<SandboxLaunch>> preparePodmanPodLaunch(SandboxRequest request) {
    if (request.explainOnly) { // nothing asked of the engine: podman run by a user is rootless
        const char* runtimeDir = std::getenv("XDG_RUNTIME_DIR");
        const ContainerScratch scratch{
            std::string(runtimeDir && *runtimeDir ? runtimeDir : "/tmp") + "/warren-container-XXXXXX",
            "warren-" + std::to_string(getpid()) + "-xxxxxx"};
        auto prepared = preparePod(std::move(request.profile), request, getuid() != 0,
                                   containerEnginePath(ContainerEngine::Podman), scratch);
        if (!prepared)
            return prepared.error();
        return std::unique_ptr<SandboxLaunch>(
            new PodmanPodLaunch(std::move(*prepared), {}, request.stdio, request.launcherDeathSignal));
    }

    const PreflightReport preflight =
        keptContainerPreflight(ContainerEngine::Podman, request.image, request.profile.limits);
    if (!preflight.ok())
        return makeError(ErrorCode::Unsupported,
                         "the kube backend cannot run here.\nPreflight:\n" + preflight.describe());
    if (sweepDue(preflight.enginePath + " pods"))
        sweepOrphanedPods(preflight.enginePath);
    auto scratch = makeContainerScratch();
    if (!scratch)
        return scratch.error();
    auto prepared = preparePod(std::move(request.profile), request, preflight.engine.rootless, preflight.enginePath,
                               *scratch);
    if (!prepared) {
        removeContainerScratch(*scratch);
        return prepared.error();
    }
    return std::unique_ptr<SandboxLaunch>(
        new PodmanPodLaunch(std::move(*prepared), std::move(*scratch), request.stdio, request.launcherDeathSignal));
}

} // namespace warren::sandbox
