#include "sandbox/Preflight.h"

#include "sandbox/bwrap/SandboxSetup.h"
#include "sandbox/bwrap/UsernsRestriction.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

extern char** environ;

namespace warren::sandbox {

namespace {

using Status = PreflightCheck::Status;

constexpr auto kCommandTimeout = std::chrono::seconds(15);
constexpr std::size_t kOutputCap = 64 * 1024;

const char* const kInstallBwrap =
    "Install bubblewrap 0.8.0 or newer: sudo apt-get install bubblewrap (Debian, "
    "Ubuntu), sudo dnf install bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch).";

std::string errnoText(int error) {
    return std::error_code(error, std::generic_category()).message();
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// The file's content, or empty when it cannot be read (absent sysctls read as empty, as the pure checks
// expect).
std::string readText(const std::string& path) {
    std::ifstream file(path);
    std::stringstream content;
    content << file.rdbuf();
    return content.str();
}

std::string versionText(const BwrapVersion& version) {
    return std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
           std::to_string(version.patch);
}

// Why path cannot be run as a program, or empty when it can.
std::string notRunnable(const std::string& path, struct stat& st) {
    if (::stat(path.c_str(), &st) != 0)
        return errnoText(errno);
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    if (::access(path.c_str(), X_OK) != 0)
        return errnoText(errno);
    return {};
}

// Finds bwrap, reads its version and mode into the report; true when it is usable for the trial.
bool checkBwrap(PreflightReport& report, const std::string& bwrapOverride) {
    PreflightCheck check{"bwrap", Status::Failed, {}, {}};
    const std::string minimum = versionText(kMinimumBwrap);
    const char* pathVariable = std::getenv("PATH");
    const std::string path =
        bwrapOverride.empty() ? findExecutable("bwrap", pathVariable ? pathVariable : "") : bwrapOverride;
    struct stat st {};
    std::string problem;
    if (path.empty()) {
        check.detail =
            std::string("bwrap is not on PATH (") + (pathVariable ? pathVariable : "PATH is unset") + ")";
        check.fix = kInstallBwrap;
    } else if (problem = notRunnable(path, st); !problem.empty()) {
        check.detail =
            path + (bwrapOverride.empty() ? "" : " (the configured bwrap)") + " cannot be run: " + problem;
        check.fix = "Point the bwrap setting at an installed bwrap, or leave it empty to search PATH. " +
                    std::string(kInstallBwrap);
    } else {
        report.bwrapPath = path;
        report.bwrapSetuid = (st.st_mode & S_ISUID) && st.st_uid == 0;
        const ProcessOutcome outcome = runCapturing({path, "--version"});
        BwrapVersion version;
        const bool parsed = succeeded(outcome) && parseBwrapVersion(outcome.output, version);
        report.bwrapVersion = version;
        if (!parsed) {
            check.detail =
                path + " --version " + describeOutcome(outcome) + "; expected \"bubblewrap X.Y.Z\"";
            check.fix =
                "Reinstall bubblewrap, or point Warren at a working bwrap. " + std::string(kInstallBwrap);
        } else if (version < kMinimumBwrap) {
            check.detail =
                path + " is bubblewrap " + versionText(version) + ", older than " + minimum +
                ", the first with --disable-userns, --json-status-fd and --size, which Warren uses";
            check.fix = "Upgrade bubblewrap to " + minimum +
                        " or newer (Debian 12 and Ubuntu 24.04 ship one), or "
                        "point Warren at a newer bwrap.";
        } else {
            check.status = Status::Ok;
            check.detail =
                path + ", bubblewrap " + versionText(version) +
                (report.bwrapSetuid
                     ? ", installed setuid root: it sets up the namespaces with root privileges and "
                       "drops them before running the command, so sysctls that stop unprivileged users "
                       "from creating user namespaces do not stop it; a bug in it is a local root "
                       "exploit, so keep it updated"
                     : ", not setuid: it needs the kernel to let this user create user namespaces");
        }
    }
    report.checks.push_back(check);
    return check.status == Status::Ok;
}

// bwrap with the namespaces every Warren sandbox uses, running /usr/bin/true on the host's /usr.
std::vector<std::string> trialCommand(const std::string& bwrap) {
    std::vector<std::string> argv{bwrap,       "--unshare-user", "--unshare-pid", "--disable-userns",
                                  "--ro-bind", "/usr",           "/usr"};
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        struct stat st {};
        if (::lstat(top, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            const ssize_t n = ::readlink(top, target, sizeof target - 1);
            if (n > 0)
                argv.insert(argv.end(), {"--symlink", std::string(target, static_cast<std::size_t>(n)), top});
        } else if (S_ISDIR(st.st_mode)) {
            argv.insert(argv.end(), {"--ro-bind", top, top});
        }
    }
    struct stat st {};
    const std::string program = ::stat("/usr/bin/true", &st) == 0 ? "/usr/bin/true" : "/bin/true";
    argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev", "--", program});
    return argv;
}

PreflightCheck trialCheck(const std::string& bwrap, const PreflightCheck& userns, const PreflightCheck& apparmor) {
    const auto argv = trialCommand(bwrap);
    const ProcessOutcome outcome = runCapturing(argv);
    if (succeeded(outcome))
        return {"sandbox trial",
                Status::Ok,
                "bwrap ran a program in new user and PID namespaces, with user namespaces disabled inside",
                {}};
    PreflightCheck check{"sandbox trial", Status::Failed, {}, {}};
    std::string commandLine;
    for (const auto& arg : argv)
        commandLine += (commandLine.empty() ? "" : " ") + arg;
    check.detail = commandLine + " " + describeOutcome(outcome);
    if (userns.status == Status::Failed)
        check.fix = userns.fix;
    else if (apparmor.status != Status::Ok)
        check.fix = apparmor.fix;
    else
        check.fix =
            "bwrap's message above says what failed. Inside a container, the container must allow nested "
            "user namespaces (for Docker or Podman: a seccomp profile that permits unshare and mount, "
            "and no AppArmor confinement of bwrap).";
    return check;
}

} // namespace


// posix_spawn rather than fork: safe in a multi-threaded control plane, and no Qt in sandbox/.
ProcessOutcome runCapturing(const std::vector<std::string>& argv, bool withStderr) {
    ProcessOutcome outcome;
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        outcome.spawnError = errno;
        return outcome;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    if (withStderr)
        posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDERR_FILENO);
    else
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> args;
    for (const auto& arg : argv)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    outcome.spawnError = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (outcome.spawnError != 0) {
        ::close(pipeFds[0]);
        return outcome;
    }

    // Watch the output and the process itself (a pidfd), so a program that exits while something it
    // started still holds the pipe does not keep us waiting.
    const int pidFd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    const auto deadline = std::chrono::steady_clock::now() + kCommandTimeout;
    bool outputOpen = true, exited = false;
    while (outputOpen && !exited) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            ::kill(pid, SIGKILL);
            outcome.timedOut = true;
            break;
        }
        pollfd fds[2] = {{pipeFds[0], POLLIN, 0}, {pidFd, POLLIN, 0}};
        const int ready = ::poll(fds, pidFd >= 0 ? 2 : 1, static_cast<int>(left.count()));
        if (ready < 0 && errno != EINTR)
            break;
        if (fds[0].revents) {
            char buffer[4096];
            const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
            if (n > 0 && outcome.output.size() < kOutputCap)
                outcome.output.append(buffer, static_cast<std::size_t>(n));
            outputOpen = n > 0 || (n < 0 && errno == EINTR);
        }
        exited = pidFd >= 0 && (fds[1].revents & POLLIN);
    }
    if (exited && outputOpen && ::fcntl(pipeFds[0], F_SETFL, O_NONBLOCK) == 0) { // what it wrote last
        char buffer[4096];
        ssize_t n;
        while ((n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0 && outcome.output.size() < kOutputCap)
            outcome.output.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipeFds[0]);
    while (::waitpid(pid, &outcome.waitStatus, 0) < 0 && errno == EINTR) {
    }
    if (pidFd >= 0)
        ::close(pidFd);
    return outcome;
}

std::string describeOutcome(const ProcessOutcome& outcome) {
    if (outcome.spawnError)
        return "could not be started: " + errnoText(outcome.spawnError);
    std::string text;
    if (outcome.timedOut)
        text = "did not finish within " + std::to_string(kCommandTimeout.count()) + " s and was killed";
    else if (WIFEXITED(outcome.waitStatus))
        text = "exited with status " + std::to_string(WEXITSTATUS(outcome.waitStatus));
    else if (WIFSIGNALED(outcome.waitStatus))
        text = std::string("was killed by signal ") + ::strsignal(WTERMSIG(outcome.waitStatus));
    const std::string output = trim(outcome.output);
    return output.empty() ? text + ", printing nothing" : text + ": " + output;
}

bool succeeded(const ProcessOutcome& outcome) {
    return !outcome.spawnError && !outcome.timedOut && WIFEXITED(outcome.waitStatus) &&
           WEXITSTATUS(outcome.waitStatus) == 0;
}

bool parseBwrapVersion(const std::string& versionOutput, BwrapVersion& out) {
    const std::string line = trim(versionOutput.substr(0, versionOutput.find('\n')));
    const std::string prefix = "bubblewrap ";
    if (line.compare(0, prefix.size(), prefix) != 0)
        return false;
    const char* cursor = line.data() + prefix.size();
    const char* const end = line.data() + line.size();
    int parts[3] = {0, 0, 0};
    int count = 0;
    while (count < 3) {
        const auto parsed = std::from_chars(cursor, end, parts[count]);
        if (parsed.ec != std::errc{} || parts[count] < 0)
            return false;
        cursor = parsed.ptr;
        ++count;
        if (count == 3 || cursor == end || *cursor != '.')
            break;
        ++cursor;
    }
    // "0.10.0-rc1", "0.8.0+git", "1.0 (distro)": a suffix after the numbers is fine, letters glued to them
    // not.
    if (count < 2 || (cursor != end && std::string_view("-+~. ").find(*cursor) == std::string_view::npos))
        return false;
    out = {parts[0], parts[1], parts[2]};
    return true;
}

PreflightCheck userNamespaceCheck(const std::string& maxUserNamespaces,
                                  const std::string& unprivilegedUsernsClone, bool runningAsRoot,
                                  bool bwrapSetuid) {
    PreflightCheck check{"user namespaces", Status::Ok, {}, {}};
    if (maxUserNamespaces == "0") {
        check.status = Status::Failed;
        check.detail =
            "user.max_user_namespaces is 0: no process, not even root or a setuid bwrap, may create a "
            "user namespace, and every Warren sandbox runs in one";
        check.fix = "sudo sysctl -w user.max_user_namespaces=15000, and make it permanent with a file in "
                    "/etc/sysctl.d/.";
        return check;
    }
    if (runningAsRoot) {
        check.detail = "running as root: only user.max_user_namespaces applies, and it allows them";
        return check;
    }
    const std::string setuidNote = ", but bwrap is setuid root and creates the namespace with its privileges";
    if (unprivilegedUsernsClone == "0") {
        check.detail =
            "kernel.unprivileged_userns_clone is 0 (Debian's switch): users other than root may not "
            "create user namespaces";
        if (bwrapSetuid) {
            check.detail += setuidNote;
            return check;
        }
        check.status = Status::Failed;
        check.fix = "sudo sysctl -w kernel.unprivileged_userns_clone=1, and make it permanent with a file in "
                    "/etc/sysctl.d/.";
        return check;
    }
    check.detail = "users may create user namespaces (user.max_user_namespaces = " +
                   (maxUserNamespaces.empty() ? std::string("unknown") : maxUserNamespaces) + ")";
    return check;
}

PreflightCheck seccompCheck(const std::string& procSelfStatus, const std::string& actionsAvail) {
    PreflightCheck check{"seccomp", Status::Failed, {}, {}};
    std::istringstream lines(procSelfStatus);
    std::string line, mode;
    while (std::getline(lines, line))
        if (line.compare(0, 8, "Seccomp:") == 0)
            mode = trim(line.substr(8));
    if (mode.empty()) {
        check.detail = "this kernel has no seccomp (no Seccomp field in /proc/self/status)";
        check.fix = "Boot a kernel built with CONFIG_SECCOMP and CONFIG_SECCOMP_FILTER, as every mainstream "
                    "distribution kernel is.";
        return check;
    }
    if (actionsAvail.empty()) {
        check.detail = "the kernel does not say which seccomp actions it supports (no "
                       "/proc/sys/kernel/seccomp/actions_avail: Linux older than 4.14)";
        check.fix = "Use Linux 4.14 or newer: the filter needs the errno and kill_process actions.";
        return check;
    }
    std::istringstream available(actionsAvail);
    std::vector<std::string> actions{std::istream_iterator<std::string>(available), {}};
    std::string missing;
    for (const char* needed : {"errno", "kill_process"})
        if (std::find(actions.begin(), actions.end(), needed) == actions.end())
            missing += (missing.empty() ? "" : ", ") + std::string(needed);
    if (!missing.empty()) {
        check.detail =
            "the kernel lacks the seccomp action(s) " + missing + " (available: " + trim(actionsAvail) + ")";
        check.fix =
            "Use Linux 4.14 or newer: the filter refuses calls with errno and kills the whole process on "
            "a foreign architecture.";
        return check;
    }
    check.status = Status::Ok;
    check.detail = "filters with the errno and kill_process actions are supported";
    if (mode == "2")
        check.detail += "; this process already runs under a seccomp filter (a container?), and Warren's is "
                        "stacked on it: the stricter rule wins";
    return check;
}

PreflightCheck cgroupCheck(const CgroupSupport& support) {
    PreflightCheck check{"cgroups", Status::Ok, support.detail, {}};
    if (support.memory && support.pids && support.kill)
        return check;
    std::vector<std::string> standIns;
    if (!support.memory)
        standIns.push_back(
            "the memory limit becomes RLIMIT_AS, a cap on each process's address space rather than "
            "on the memory of the whole sandbox");
    if (!support.pids)
        standIns.push_back(
            "the process limit becomes RLIMIT_NPROC, which counts every process of the user and "
            "which the kernel ignores for root, so as root a process limit cannot be enforced");
    if (!support.kill)
        standIns.push_back(
            "stopping the sandbox relies on its PID namespace, whose processes the kernel kills "
            "when the sandbox's init exits");
    check.status = Status::Warning;
    std::string joined;
    for (const auto& standIn : standIns)
        joined += (joined.empty() ? "" : "; ") + standIn;
    check.detail += ". Without a cgroup, " + joined;
    check.fix = "For limits on the sandbox as a whole, run Warren as root, or under a systemd unit with "
                "Delegate=yes so it may create cgroups with the memory and pids controllers.";
    return check;
}

bool PreflightReport::ok() const {
    return std::none_of(checks.begin(), checks.end(),
                        [](const PreflightCheck& check) { return check.status == Status::Failed; });
}

const PreflightCheck* PreflightReport::find(const std::string& name) const {
    for (const auto& check : checks)
        if (check.name == name)
            return &check;
    return nullptr;
}

std::string PreflightReport::describe() const {
    std::string text;
    for (const auto& check : checks) {
        const std::string status = check.status == Status::Ok        ? "ok"
                                   : check.status == Status::Warning ? "warning"
                                                                     : "FAILED";
        text += status + std::string(8 - status.size(), ' ') + check.name + ": " + check.detail + "\n";
        if (check.status != Status::Ok && !check.fix.empty())
            text += "        fix: " + check.fix + "\n";
    }
    return text;
}

PreflightReport runPreflight(const std::string& bwrapOverride) {
    PreflightReport report;
    const bool bwrapUsable = checkBwrap(report, bwrapOverride);

    const bool root = ::geteuid() == 0;
    const PreflightCheck userns = userNamespaceCheck(
        trim(readText("/proc/sys/user/max_user_namespaces")),
        trim(readText("/proc/sys/kernel/unprivileged_userns_clone")), root, report.bwrapSetuid);
    PreflightCheck apparmor = usernsRestrictionCheck(readUsernsRestrictionInputs(root, report.bwrapSetuid));
    report.checks.push_back(userns);
    if (bwrapUsable) {
        PreflightCheck trial = trialCheck(report.bwrapPath, userns, apparmor);
        if (trial.status == Status::Ok &&
            apparmor.status == Status::Warning) // another profile lets bwrap through
            apparmor = {apparmor.name,
                        Status::Ok,
                        apparmor.detail + "; still, an AppArmor profile lets bwrap create "
                                          "them (the sandbox trial succeeded)",
                        {}};
        report.checks.push_back(apparmor);
        report.checks.push_back(trial);
    } else {
        report.checks.push_back(apparmor);
    }

    report.checks.push_back(seccompCheck(readText("/proc/self/status"),
                                         trim(readText("/proc/sys/kernel/seccomp/actions_avail"))));
    report.cgroups = Cgroup::probe();
    report.checks.push_back(cgroupCheck(report.cgroups));
    return report;
}

Result<EngineInfo> parseEngineInfo(ContainerEngine engine, const std::string& json) {
    const auto info = nlohmann::json::parse(json, nullptr, false);
    if (!info.is_object())
        return makeError(ErrorCode::InvalidArgument, containerEngineName(engine) + " info did not print a JSON object");
    EngineInfo result;
    auto text = [](const nlohmann::json& object, const char* key) {
        const auto it = object.find(key);
        return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto flag = [](const nlohmann::json& object, const char* key) {
        const auto it = object.find(key);
        return it != object.end() && it->is_boolean() && it->get<bool>();
    };
    if (engine == ContainerEngine::Podman) {
        const auto host = info.value("host", nlohmann::json::object());
        const auto security = host.value("security", nlohmann::json::object());
        result.version = text(info.value("version", nlohmann::json::object()), "Version");
        result.rootless = flag(security, "rootless");
        result.seccomp = flag(security, "seccompEnabled");
        const auto controllers = host.value("cgroupControllers", nlohmann::json::array());
        auto has = [&controllers](const char* name) {
            return controllers.is_array() && std::find(controllers.begin(), controllers.end(), name) != controllers.end();
        };
        // Rootless podman on cgroup v1 cannot set limits at all, whatever the host has.
        const std::string version = text(host, "cgroupVersion");
        const bool usable = !(result.rootless && version == "v1");
        result.memoryLimit = usable && has("memory");
        result.pidsLimit = usable && has("pids");
        result.cgroups = "cgroup " + version + " (" + text(host, "cgroupManager") + ")";
    } else {
        result.version = text(info, "ServerVersion");
        const auto options = info.value("SecurityOptions", nlohmann::json::array());
        for (const auto& option : options) {
            if (!option.is_string())
                continue;
            const std::string value = option.get<std::string>();
            result.rootless = result.rootless || value == "name=rootless";
            result.seccomp = result.seccomp || value.rfind("name=seccomp", 0) == 0;
        }
        result.memoryLimit = flag(info, "MemoryLimit");
        result.pidsLimit = flag(info, "PidsLimit");
        result.cgroups = "cgroup v" + text(info, "CgroupVersion") + " (" + text(info, "CgroupDriver") + ")";
    }
    return result;
}

PreflightCheck containerLimitsCheck(ContainerEngine engine, const EngineInfo& info, const SandboxLimits& limits) {
    PreflightCheck check{"container limits", Status::Ok, {}, {}};
    std::vector<std::string> missing;
    if (limits.memoryMb && !info.memoryLimit)
        missing.push_back("the memory limit (" + std::to_string(limits.memoryMb) + " MiB)");
    if (limits.pids && !info.pidsLimit)
        missing.push_back("the process limit (" + std::to_string(limits.pids) + ")");
    if (missing.empty()) {
        check.detail = containerEngineName(engine) + " enforces the memory and process limits with the memory and "
                       "pids cgroup controllers, " + info.cgroups;
        return check;
    }
    check.status = Status::Failed;
    std::string joined;
    for (const auto& item : missing)
        joined += (joined.empty() ? "" : " and ") + item;
    check.detail = containerEngineName(engine) + " cannot enforce " + joined + " here, " + info.cgroups +
                   (info.rootless ? ", rootless" : "");
    check.fix = info.rootless
                    ? "Rootless containers get limits only on cgroup v2 with the memory and pids controllers "
                      "delegated to the user (systemd: a drop-in with Delegate=memory pids for user@.service); or "
                      "use a rootful engine, --backend bwrap, or set limits.memory_mb / limits.pids to 0."
                    : "Enable the memory and pids cgroup controllers for the engine (on cgroup v1 boot with "
                      "cgroup_enable=memory), or use --backend bwrap, or set limits.memory_mb / limits.pids to 0.";
    return check;
}

PreflightReport containerEngineChecks(ContainerEngine engine, const std::string& enginePath) {
    PreflightReport report;
    const std::string name = containerEngineName(engine);
    const char* pathVariable = std::getenv("PATH");
    const std::string path = enginePath.empty() ? findExecutable(name, pathVariable ? pathVariable : "") : enginePath;
    if (path.empty()) {
        report.checks.push_back({"engine", Status::Failed,
                                 name + " is not on PATH (" + (pathVariable ? pathVariable : "PATH is unset") + ")",
                                 engine == ContainerEngine::Podman
                                     ? "Install podman: sudo apt-get install podman (Debian, Ubuntu), sudo dnf "
                                       "install podman (Fedora); or use --backend bwrap."
                                     : "Install Docker (sudo apt-get install docker.io, or Docker Engine from "
                                       "docs.docker.com), or use --backend bwrap."});
        return report;
    }
    report.enginePath = path;
    report.checks.push_back({"engine", Status::Ok, path, {}});

    const std::vector<std::string> infoCommand =
        engine == ContainerEngine::Podman ? std::vector<std::string>{path, "info", "--format", "json"}
                                          : std::vector<std::string>{path, "info", "--format", "{{json .}}"};
    const ProcessOutcome infoOutcome = runCapturing(infoCommand, false);
    auto info = succeeded(infoOutcome) ? parseEngineInfo(engine, infoOutcome.output)
                                       : Result<EngineInfo>(makeError(ErrorCode::System, describeOutcome(infoOutcome)));
    if (!info) {
        const ProcessOutcome withErrors = runCapturing(infoCommand);
        report.checks.push_back(
            {"engine info", Status::Failed, name + " info " + describeOutcome(withErrors),
             engine == ContainerEngine::Podman
                 ? "Run 'podman info' and fix what it reports (for rootless podman: newuidmap and /etc/subuid "
                   "entries for your user; CONTAINERS_CONF selects another containers.conf)."
                 : "Start the daemon (sudo systemctl start docker), make sure your user may use it (the docker "
                   "group, or rootless Docker), and check DOCKER_HOST and 'docker context ls'."});
        return report;
    }
    report.engine = *info;
    report.checks.push_back({"engine info", Status::Ok,
                             name + " " + info->version + ", " + (info->rootless ? "rootless" : "rootful (the "
                             "engine runs as root; the container still runs as an unprivileged uid)") + ", " +
                                 info->cgroups,
                             {}});
    if (info->seccomp)
        report.checks.push_back({"seccomp", Status::Ok, name + " applies seccomp profiles", {}});
    else
        report.checks.push_back({"seccomp", Status::Failed, name + " reports no seccomp support",
                                 "Use an engine built with seccomp (libseccomp) on a kernel with seccomp, or use "
                                 "--backend bwrap."});

    return report;
}

PreflightCheck containerImageCheck(ContainerEngine engine, const std::string& enginePath, const std::string& image) {
    const std::string name = containerEngineName(engine);
    const ProcessOutcome imageOutcome = runCapturing({enginePath, "image", "inspect", "--format", "{{.Id}}", image});
    if (succeeded(imageOutcome))
        return {"image", Status::Ok, image + " is present (" + trim(imageOutcome.output) + ")", {}};
    return {"image", Status::Failed,
            image + " is not present locally: " + name + " image inspect " + describeOutcome(imageOutcome),
            "Warren never pulls an image on its own: run '" + name + " pull " + image + "', or build or import it ('" +
                name + " load', '" + name + " import'), or pass another --image."};
}

bool engineAnswered(const PreflightReport& report) {
    const PreflightCheck* info = report.find("engine info");
    return info && info->status == Status::Ok;
}

PreflightReport runContainerPreflight(ContainerEngine engine, const std::string& image, const SandboxLimits& limits,
                                      const std::string& enginePath) {
    PreflightReport report = containerEngineChecks(engine, enginePath);
    if (!engineAnswered(report))
        return report;
    report.checks.push_back(containerImageCheck(engine, report.enginePath, image));
    report.checks.push_back(containerLimitsCheck(engine, report.engine, limits));
    return report;
}

} // namespace warren::sandbox
