#include "sandbox/container/DockerCommand.h"

#include "sandbox/container/ContainerUser.h"

#include <algorithm>

namespace warren::sandbox {
namespace {

// The host's own system files in the default profile: in a container the image provides them. A profile
// mount of one of these paths onto itself is therefore not bound (and said so in the notes).
constexpr const char* kImageProvidedPaths[] = {"/usr",           "/bin",           "/sbin",
                                               "/lib",           "/lib32",         "/lib64",
                                               "/etc/ld.so.cache", "/etc/alternatives", "/etc/ssl/certs",
                                               "/etc/localtime"};

} // namespace

bool imageProvidesMount(const MountSpec& mount) {
    if (mount.type != MountSpec::Type::RoBind && mount.type != MountSpec::Type::Mirror)
        return false;
    return mount.source == mount.dest &&
           std::find(std::begin(kImageProvidedPaths), std::end(kImageProvidedPaths), mount.dest) !=
               std::end(kImageProvidedPaths);
}

std::string fromImageNote(const std::string& image, const std::vector<std::string>& destinations) {
    std::string list;
    for (const auto& dest : destinations)
        list += (list.empty() ? "" : ", ") + dest;
    return "from the image " + image + ", read-only, instead of the host's: " + list;
}

Result<std::optional<HostEntry>> containerBindSource(const MountSpec& mount, const HostLookup& lookup,
                                                     const std::string& engine, std::vector<std::string>& notEnforced) {
    const HostEntry entry = lookup(mount.source);
    if (entry.kind == HostEntry::Kind::Missing) {
        if (mount.optional)
            return std::optional<HostEntry>();
        return makeError(ErrorCode::NotFound, "mount source " + mount.source + " (for " + mount.dest +
                                                  ") does not exist on this host; create it, or mark the mount "
                                                  "\"optional\": true in the profile");
    }
    if (mount.type == MountSpec::Type::Mirror && entry.kind == HostEntry::Kind::Symlink) {
        notEnforced.push_back("mount " + mount.dest + ": the symlink to " + entry.linkTarget + " is not created (" +
                              engine + " cannot create symlinks)");
        return std::optional<HostEntry>();
    }
    return std::optional<HostEntry>(entry);
}

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
    auto dataFile = [&](const std::string& name, std::string bytes, std::string purpose) {
        const std::string path = request.dataDir + "/" + name;
        result.files.push_back({path, std::move(bytes), std::move(purpose)});
        return path;
    };

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

    // Mounts: the profile's, then the workspace and its protected paths. The engine orders them by depth.
    std::vector<std::string> fromImage;
    bool proc = false, dev = false;
    for (const auto& mount : profile.mounts) {
        if (imageProvidesMount(mount)) {
            fromImage.push_back(mount.dest);
            continue;
        }
        switch (mount.type) {
        case MountSpec::Type::RoBind:
        case MountSpec::Type::Bind:
        case MountSpec::Type::Mirror: {
            auto source = containerBindSource(mount, lookup, "docker run", result.notEnforced);
            if (!source)
                return source.error();
            if (!*source)
                break;
            if (auto ok = checkMountPath(mount.source, "mount source"); !ok)
                return ok.error();
            if (auto ok = checkMountPath(mount.dest, "mount destination"); !ok)
                return ok.error();
            add({"--mount", bindOption(mount.source, mount.dest, mount.type != MountSpec::Type::Bind)});
            break;
        }
        case MountSpec::Type::Symlink:
            result.notEnforced.push_back("mount " + mount.dest + ": the symlink to " + mount.target +
                                         " is not created (docker run cannot create symlinks)");
            break;
        case MountSpec::Type::Tmpfs:
            if (auto ok = checkMountPath(mount.dest, "tmpfs"); !ok)
                return ok.error();
            if (mount.dest.find(':') != std::string::npos)
                return usage("tmpfs " + mount.dest + " contains ':', which --tmpfs cannot carry");
            // exec, like bwrap's tmpfs (the engines default to noexec); 1777 like bwrap's too.
            add({"--tmpfs",
                 mount.dest + ":rw,exec,nosuid,nodev,size=" + std::to_string(mount.sizeMb) + "m,mode=1777"});
            break;
        case MountSpec::Type::Proc:
            proc = true;
            break;
        case MountSpec::Type::Dev:
            dev = true;
            break;
        }
    }
    if (!fromImage.empty())
        result.notes.push_back(fromImageNote(request.image, fromImage));
    result.notes.push_back(std::string("/proc and /dev are the engine's: a fresh /proc of the container's pid "
                                       "namespace with /proc/sys and the kernel's sensitive entries read-only or "
                                       "masked, and a minimal /dev") +
                           (proc && dev ? "" : " (the profile asks for none; every container has them)"));
    result.notes.push_back("/etc/hosts and /etc/hostname are written by the engine");

    add({"--mount", bindOption(dataFile("passwd", containerPasswdFile(profile, uid, gid), "/etc/passwd"), "/etc/passwd", true),
         "--mount", bindOption(dataFile("group", containerGroupFile(profile, gid), "/etc/group"), "/etc/group", true)});

    const std::string& ws = profile.workspaceDest;
    if (auto ok = checkMountPath(profile.workspaceSource, "workspace"); !ok)
        return ok.error();
    // The protected paths' binds come from the same view as the workspace, so they show the same owners.
    const std::string workspace = result.workspaceView ? result.workspaceView->path : profile.workspaceSource;
    add({"--mount", bindOption(workspace, ws, !profile.workspaceWritable)});
    for (const auto& entry : request.protection.entries) {
        const std::string source = workspace + "/" + entry.relative;
        const std::string dest = ws + "/" + entry.relative;
        if (auto ok = checkMountPath(source, "protected path"); !ok)
            return ok.error();
        switch (entry.kind) {
        case ProtectionEntry::Kind::Pin:
            add({"--mount", bindOption(source, dest, !profile.workspaceWritable)});
            break;
        case ProtectionEntry::Kind::ReadOnly:
            add({"--mount", bindOption(source, dest, true)});
            break;
        case ProtectionEntry::Kind::PlaceholderFile: {
            const std::string empty = request.dataDir + "/empty";
            if (std::none_of(result.files.begin(), result.files.end(),
                             [&](const DockerDataFile& file) { return file.hostPath == empty; }))
                result.files.push_back({empty, {}, "empty placeholder"});
            add({"--mount", bindOption(empty, dest, true)});
            break;
        }
        case ProtectionEntry::Kind::PlaceholderDir:
            if (dest.find(':') != std::string::npos)
                return usage("protected path " + dest + " contains ':', which --tmpfs cannot carry");
            add({"--tmpfs", dest + ":ro,nosuid,nodev,noexec,size=4k,mode=0555"});
            break;
        }
    }

    // The environment: only what the profile passes, from a file so values stay out of argv.
    std::string envFile;
    for (const auto& [name, value] : sandboxEnvironment(profile, request.hostEnv)) {
        if (value.find('\n') != std::string::npos)
            return usage("environment variable " + name + " holds a newline, which an engine's --env-file "
                                                           "cannot carry; use --backend bwrap");
        envFile += name + "=" + value + "\n";
    }
    add({"--env-file", dataFile("env", envFile, "environment")});
    result.notes.push_back(std::string("environment: the profile's variables, plus HOSTNAME") +
                           (podman ? " and container=podman" : "") + " from the engine and any ENV of the image "
                           "that the profile does not set");

    add({"--workdir", ws, "--entrypoint", request.command.front(), request.image});
    argv.insert(argv.end(), request.command.begin() + 1, request.command.end());
    return result;
}

} // namespace warren::sandbox
