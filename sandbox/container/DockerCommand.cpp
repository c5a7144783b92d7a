#include "sandbox/container/DockerCommand.h"

#include "sandbox/container/ContainerSpec.h"
#include "sandbox/container/ContainerUser.h"

#include <algorithm>

namespace warren::sandbox {
namespace {

Error usage(const std::string& message) { return makeError(ErrorCode::InvalidArgument, message); }

// --mount is a comma-separated list of key=value and --tmpfs splits at ':'; neither can quote.
Status checkMountPath(const std::string& path, const std::string& what) {
    if (path.find_first_of(",\n") != std::string::npos)
        return usage(what + " " + path + " contains a comma or a newline, which a container engine's --mount "
                                          "cannot carry; rename it, or use --backend bwrap");
    return Ok{};
}

std::string bindOption(const std::string& source, const std::string& target, bool readOnly) {
    return "type=bind,source=" + source + ",target=" + target + (readOnly ? ",readonly" : "");
}

bool validContainerName(const std::string& name) {
    return name.rfind("warren-", 0) == 0 && name.size() > 7 && std::all_of(name.begin(), name.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.';
           });
}

// One mount of the ContainerSpec as options: a bind with --mount, memory with --tmpfs.
Status addMount(const ContainerMount& mount, std::vector<std::string>& argv) {
    using Purpose = ContainerMount::Purpose;
    switch (mount.kind) {
    case ContainerMount::Kind::HostPath:
        if (mount.purpose == Purpose::ProfileMount) {
            if (auto ok = checkMountPath(mount.source, "mount source"); !ok)
                return ok;
            if (auto ok = checkMountPath(mount.dest, "mount destination"); !ok)
                return ok;
        } else if (mount.purpose == Purpose::ProtectedPath) {
            if (auto ok = checkMountPath(mount.source, "protected path"); !ok)
                return ok;
        }
        argv.insert(argv.end(), {"--mount", bindOption(mount.source, mount.dest, mount.readOnly)});
        return Ok{};
    case ContainerMount::Kind::Memory:
        if (auto ok = checkMountPath(mount.dest, "tmpfs"); !ok)
            return ok;
        if (mount.dest.find(':') != std::string::npos)
            return usage("tmpfs " + mount.dest + " contains ':', which --tmpfs cannot carry");
        // exec, like bwrap's tmpfs (the engines default to noexec); 1777 like bwrap's too.
        argv.insert(argv.end(), {"--tmpfs", mount.dest + ":rw,exec,nosuid,nodev,size=" +
                                                std::to_string(mount.sizeMb) + "m,mode=1777"});
        return Ok{};
    case ContainerMount::Kind::EmptyDirectory:
        if (mount.dest.find(':') != std::string::npos)
            return usage("protected path " + mount.dest + " contains ':', which --tmpfs cannot carry");
        argv.insert(argv.end(), {"--tmpfs", mount.dest + ":ro,nosuid,nodev,noexec,size=4k,mode=0555"});
        return Ok{};
    case ContainerMount::Kind::UploadedWorkspace:
    case ContainerMount::Kind::WorkspacePath:
        break;
    }
    return usage("a container of docker or podman runs on this host, with the workspace bound, not uploaded");
}

// A warm container's mount: a bind of this host from its slot, received from the host; what lies inside the
// workspace is the claim's; the rest as in any container.
Status addWarmMount(const ContainerMount& mount, const DockerRequest::Warm& warm,
                    const std::string& workspaceDest, DockerCommand& result) {
    if (mount.dest.rfind(workspaceDest + "/", 0) == 0) {
        result.claimMounts.push_back(mount);
        return Ok{};
    }
    if (mount.kind != ContainerMount::Kind::HostPath)
        return addMount(mount, result.argv);
    if (auto ok = checkMountPath(mount.dest, "mount destination"); !ok)
        return ok;
    const std::string slot = (mount.directory ? "d" : "f") + std::to_string(result.slotBinds.size());
    result.argv.insert(result.argv.end(),
                       {"--mount", bindOption(warm.slotsDir + "/" + slot, mount.dest, mount.readOnly) +
                                       ",bind-propagation=rslave"});
    if (mount.purpose == ContainerMount::Purpose::Workspace)
        result.workspaceSlot = slot;
    result.slotBinds.push_back({slot, mount});
    return Ok{};
}

std::string ulimit(const char* name, std::uint64_t value) {
    return std::string(name) + "=" + std::to_string(value) + ":" + std::to_string(value);
}

} // namespace

std::string containerEngineName(ContainerEngine engine) {
    return engine == ContainerEngine::Podman ? "podman" : "docker";
}

std::string DockerCommand::commandLine() const { return shellCommandLine(argv); }

Result<DockerCommand> buildDockerCommand(const SandboxProfile& profile, const DockerRequest& request,
                                         const HostLookup& lookup) {
    if (request.command.empty())
        return usage("no command to run in the container");
    if (request.seccompProfilePath.empty())
        return usage("no seccomp profile: the container never runs without one");
    if (request.image.empty())
        return usage("no container image given (the default is " + std::string(kDefaultContainerImage) + ")");
    if (request.dataDir.empty())
        return usage("no directory for the container's generated files (/etc/passwd, environment)");
    if (!validContainerName(request.containerName))
        return usage("container name \"" + request.containerName +
                     "\" must start with \"warren-\" and use only letters, digits, '-', '_' and '.'");

    const bool podman = request.engine == ContainerEngine::Podman;
    DockerCommand result;
    auto& argv = result.argv;
    auto add = [&argv](std::initializer_list<std::string> words) { argv.insert(argv.end(), words); };

    add({request.enginePath.empty() ? containerEngineName(request.engine) : request.enginePath, "run"});
    // Attached stdin for the agent's protocol; removed when it ends; found again by name and label when the
    // launcher was killed before it could remove it; never pulled behind the user's back.
    add({"--interactive", "--rm", "--name", request.containerName, "--label", std::string(kContainerLabel) + "=1"});
    for (const auto& [name, value] : request.labels)
        add({"--label", name + "=" + value});
    add({"--pull", "never"});
    // An init reaps orphans and passes signals on, but holds the container's stdio as pid 1, where a process
    // of the same uid reopens it through /proc/1/fd: a command that is its own init goes without.
    if (!request.commandIsInit)
        add({"--init"});

    // Privileges: none, and no way to gain any. The seccomp profile is the same table as the BPF filter.
    add({"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--security-opt",
         "seccomp=" + request.seccompProfilePath});

    // The user (ContainerUser): who owns what the sandbox writes in the workspace.
    ContainerUserInput userInput{request.rootlessEngine, podman,
                                 request.invokerUid,     request.invokerGid,
                                 request.workspaceOwnerUid, request.workspaceOwnerGid,
                                 request.dataDir + "/" + kWorkspaceViewName};
    const ContainerUser user = chooseContainerUser(profile, userInput);
    const std::uint32_t uid = user.uid;
    const std::uint32_t gid = user.gid;
    if (user.keepId)
        add({"--userns", "keep-id:uid=" + std::to_string(uid) + ",gid=" + std::to_string(gid)});
    if (!user.note.empty())
        result.notes.push_back(user.note);
    if (!user.notEnforced.empty())
        result.notEnforced.push_back(user.notEnforced);
    result.hostOwnerUid = user.hostOwnerUid;
    result.hostOwnerGid = user.hostOwnerGid;
    result.workspaceView = user.workspaceView;
    add({"--user", std::to_string(uid) + ":" + std::to_string(gid)});
    result.uid = uid;
    result.gid = gid;
    if (podman)
        add({"--passwd=false"}); // ours is bound below; podman would otherwise add an entry to the image's

    // Namespaces: own network with only lo, own IPC, cgroup, pid and uts namespaces.
    add({"--network", "none", "--ipc", "private", "--cgroupns", "private", "--hostname", profile.hostname});
    if (profile.network == NetworkPolicy::Loopback)
        result.notes.push_back("network loopback: --network none still gives the container its own lo; the "
                               "seccomp profile allows AF_INET/AF_INET6 sockets, which reach only it");

    // The root filesystem is the image's, read-only; writable space is only what the profile mounts.
    add({"--read-only"});
    if (podman)
        add({"--read-only-tmpfs=false"}); // podman would add writable /run, /tmp and /var/tmp

    // Limits. The wall-clock timeout is the launcher's, as with bwrap.
    const SandboxLimits& limits = profile.limits;
    if (limits.memoryMb) {
        const std::string memory = std::to_string(limits.memoryMb) + "m";
        add({"--memory", memory, "--memory-swap", memory}); // equal: no swap beyond the memory limit
    }
    if (limits.pids)
        add({"--pids-limit", std::to_string(limits.pids)});
    add({"--ulimit", ulimit("core", 0)});
    if (limits.cpuSeconds)
        add({"--ulimit", ulimit("cpu", limits.cpuSeconds)});
    if (limits.fileSizeMb)
        add({"--ulimit", ulimit("fsize", mebibytesToBytes(limits.fileSizeMb))});
    if (limits.openFiles)
        add({"--ulimit", ulimit("nofile", limits.openFiles)});
    else if (podman && request.hostOpenFilesHard)
        add({"--ulimit", ulimit("nofile", request.hostOpenFilesHard)});
    // The process limit is the pids cgroup's; RLIMIT_NPROC is only kept within what podman may set (above).
    if (podman && request.hostProcessesHard)
        add({"--ulimit", ulimit("nproc", request.hostProcessesHard)});
    if (limits.addressSpaceMb)
        result.notEnforced.push_back("limits.address_space_mb: docker and podman have no --ulimit for "
                                     "RLIMIT_AS; the memory limit (cgroup) still applies");
    if (limits.timeoutSec)
        result.notes.push_back("limits.timeout_sec: enforced by the launcher, which kills and removes the "
                               "container");

    // Mounts: the ContainerSpec's, in its order (the engine orders them by depth), the workspace and its
    // protected paths from the idmapped view when there is one, so they show the same owners.
    if (auto ok = checkMountPath(profile.workspaceSource, "workspace"); !ok)
        return ok.error();
    ContainerSpecInput specInput;
    specInput.image = request.image;
    specInput.engineWords = "docker run";
    specInput.dataDir = request.dataDir;
    specInput.workspaceHostPath = result.workspaceView ? result.workspaceView->path : profile.workspaceSource;
    specInput.protection = request.protection;
    specInput.hostEnv = request.hostEnv;
    specInput.uid = uid;
    specInput.gid = gid;
    auto container = buildContainerSpec(profile, specInput, lookup);
    if (!container)
        return container.error();
    for (const auto& mount : container->mounts)
        if (auto ok = request.warm ? addWarmMount(mount, *request.warm, profile.workspaceDest, result)
                                   : addMount(mount, argv);
            !ok)
            return ok.error();
    if (request.warm) {
        std::stable_sort(result.claimMounts.begin(), result.claimMounts.end(),
                         [](const auto& a, const auto& b) {
                             return std::count(a.dest.begin(), a.dest.end(), '/') <
                                    std::count(b.dest.begin(), b.dest.end(), '/');
                         });
        add({"--mount", bindOption(request.warm->waiter, kWaiterInContainer, true), "--mount",
             bindOption(request.warm->claimDir, kClaimDirInContainer, false)});
    }
    result.files = std::move(container->files);
    auto& notEnforced = result.notEnforced;
    notEnforced.insert(notEnforced.end(), container->notEnforced.begin(), container->notEnforced.end());
    result.notes.insert(result.notes.end(), container->notes.begin(), container->notes.end());
    result.notes.push_back(std::string("/proc and /dev are the engine's: a fresh /proc of the container's pid "
                                       "namespace with /proc/sys and the kernel's sensitive entries read-only or "
                                       "masked, and a minimal /dev") +
                           (container->profileAsksForProcAndDev
                                ? ""
                                : " (the profile asks for none; every container has them)"));
    result.notes.push_back("/etc/hosts and /etc/hostname are written by the engine");

    // The environment: only what the profile passes, from a file so values stay out of argv (a warm
    // container's comes with its claim).
    std::string envFile;
    for (const auto& [name, value] : container->env) {
        if (value.find('\n') != std::string::npos)
            return usage("environment variable " + name + " holds a newline, which an engine's --env-file "
                                                           "cannot carry; use --backend bwrap");
        envFile += name + "=" + value + "\n";
    }
    result.env = container->env;
    if (!request.warm) {
        const std::string envPath = request.dataDir + "/env";
        result.files.push_back({envPath, envFile, "environment"});
        add({"--env-file", envPath});
    }
    result.notes.push_back(std::string("environment: the profile's variables, plus HOSTNAME") +
                           (podman ? " and container=podman" : "") + " from the engine and any ENV of the image "
                           "that the profile does not set");

    const std::string& ws = profile.workspaceDest;
    if (request.warm) {
        add({"--workdir", ws, "--entrypoint", kWaiterInContainer, request.image, "await-claim",
             std::string(kClaimDirInContainer) + "/" + kClaimSocketName});
        return result;
    }
    add({"--workdir", ws, "--entrypoint", request.command.front(), request.image});
    argv.insert(argv.end(), request.command.begin() + 1, request.command.end());
    return result;
}

} // namespace warren::sandbox
