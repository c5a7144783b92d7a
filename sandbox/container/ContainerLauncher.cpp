#include "sandbox/container/ContainerLauncher.h"

#include "sandbox/PlaceholderRecord.h"
#include "sandbox/Preflight.h"
#include "sandbox/ProcStat.h"
#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/bwrap/SandboxSetup.h"
#include "sandbox/container/IdmappedMount.h"
#include "sandbox/container/WarmSlots.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace warren::sandbox {
namespace {

constexpr int kEngineSetupFailed = 125; // docker and podman: the engine itself failed
// How long a run client may take to return after its container was killed, before it is killed too.
constexpr std::chrono::seconds kClientGrace{10};

std::uint64_t hardLimit(int resource) {
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_max == RLIM_INFINITY)
        return 0;
    return static_cast<std::uint64_t>(limit.rlim_max);
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string readFirstLine(const std::string& path) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return trimmed(line);
}



Status writeFile(const std::string& path, const std::string& bytes, mode_t mode) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return makeError(ErrorCode::System, "cannot create " + path + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int error = errno;
            ::close(fd);
            return makeError(ErrorCode::System, "cannot write " + path + ": " + std::strerror(error));
        }
        done += static_cast<std::size_t>(n);
    }
    ::fchmod(fd, mode); // exactly this mode, whatever the umask
    ::close(fd);
    return Ok{};
}

// Scratch directories are "<parent>/warren-container-PID-XXXXXX": a launcher killed before it could remove
// its own leaves one, which the next sweep removes once PID is gone.
constexpr const char* kScratchPrefix = "warren-container-";

std::string scratchParent() {
    const char* runtimeDir = std::getenv("XDG_RUNTIME_DIR");
    return runtimeDir && *runtimeDir ? runtimeDir : "/tmp";
}


} // namespace

std::string containerEnginePath(ContainerEngine engine, const std::string& override) {
    if (!override.empty())
        return override;
    const char* path = std::getenv("PATH");
    const std::string found = findExecutable(containerEngineName(engine), path ? path : "/usr/bin:/bin");
    return found.empty() ? containerEngineName(engine) : found;
}

// Field 22 of /proc/PID/stat (start time in clock ticks since boot), or empty when there is no such process.
void sweepOrphanedScratch() {
    const std::string parent = scratchParent();
    DIR* dir = ::opendir(parent.c_str());
    if (!dir)
        return;
    const std::string prefix = kScratchPrefix;
    std::vector<std::string> orphans;
    while (dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.rfind(prefix, 0) != 0)
            continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
        struct stat st {};
        if (pid > 0 && *end == '-' && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH &&
            ::lstat((parent + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid())
            orphans.push_back(parent + "/" + name);
    }
    ::closedir(dir);
    for (const auto& path : orphans)
        removeContainerScratch({path, {}});
}

Result<ContainerPolicy> resolveContainerPolicy(SandboxProfile profile) {
    auto workspace = canonicalWorkspace(profile.workspaceSource);
    if (!workspace)
        return workspace.error();
    profile.workspaceSource = *workspace;
    auto protection = planProtection(profile.workspaceSource, profile.protectedPaths);
    if (!protection)
        return protection.error();
    SeccompOptions seccompOptions;
    seccompOptions.networkDenied = profile.network == NetworkPolicy::None;
    seccompOptions.skip.insert(profile.seccompSkip.begin(), profile.seccompSkip.end());
    auto seccomp = renderDockerSeccomp(SeccompPolicy::builtIn(), seccompOptions);
    if (!seccomp)
        return seccomp.error();
    struct stat workspaceStat {};
    if (::stat(profile.workspaceSource.c_str(), &workspaceStat) != 0)
        return makeError(ErrorCode::System, "cannot read the owner of the workspace " + profile.workspaceSource +
                                                ": " + std::strerror(errno));
    return ContainerPolicy{std::move(profile), std::move(*protection), std::move(*seccomp), workspaceStat.st_uid,
                           workspaceStat.st_gid};
}

Result<PreparedContainer> prepareContainer(SandboxProfile profile, const ContainerOptions& options,
                                           const std::string& dataDir, const std::string& containerName) {
    auto policy = resolveContainerPolicy(std::move(profile));
    if (!policy)
        return policy.error();
    DockerRequest request;
    request.engine = options.engine;
    request.enginePath = options.enginePath;
    request.image = options.image;
    request.command = options.command;
    request.commandIsInit = options.commandIsInit;
    request.containerName = containerName;
    request.labels = options.labels;
    request.labels[kContainerOwnerLabel] = processOwner();
    request.dataDir = dataDir;
    request.seccompProfilePath = dataDir + "/seccomp.json";
    request.protection = policy->protection;
    request.hostEnv = options.hostEnv;
    request.invokerUid = getuid();
    request.invokerGid = getgid();
    request.workspaceOwnerUid = policy->workspaceOwnerUid;
    request.workspaceOwnerGid = policy->workspaceOwnerGid;
    request.rootlessEngine = options.rootlessEngine;
    request.hostOpenFilesHard = hardLimit(RLIMIT_NOFILE);
    // Podman lowers its own RLIMIT_NPROC to kernel.pid_max before starting the runtime, which inherits it.
    std::uint64_t processes = hardLimit(RLIMIT_NPROC);
    const std::uint64_t pidMax = std::strtoull(readFirstLine("/proc/sys/kernel/pid_max").c_str(), nullptr, 10);
    if (pidMax && (!processes || pidMax < processes))
        processes = pidMax;
    request.hostProcessesHard = processes;
    request.warm = options.warm;
    auto command = buildDockerCommand(policy->profile, request);
    if (!command)
        return command.error();
    return PreparedContainer{std::move(policy->profile), std::move(policy->protection), std::move(policy->seccomp),
                             std::move(request), std::move(*command)};
}

Result<ContainerScratch> makeContainerScratch() {
    std::string pattern = scratchParent() + "/" + kScratchPrefix + std::to_string(getpid()) + "-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        return makeError(ErrorCode::System, "cannot create a private directory for the container's files (" + pattern +
                                            "): " + std::strerror(errno) + ". Check that $XDG_RUNTIME_DIR or /tmp "
                                            "is writable.");
    return ContainerScratch{pattern,
                            "warren-" + std::to_string(getpid()) + "-" + pattern.substr(pattern.size() - 6)};
}

void removeContainerScratch(const ContainerScratch& scratch) {
    if (scratch.dataDir.empty())
        return;
    unmountIdmappedView(scratch.dataDir + "/" + kWorkspaceViewName);
    removeWarmDirectories(scratch.dataDir);
    // The directory is private (0700) and holds only the files a launch wrote there.
    if (DIR* dir = ::opendir(scratch.dataDir.c_str())) {
        std::vector<std::string> files;
        while (dirent* entry = ::readdir(dir))
            if (entry->d_type != DT_DIR)
                files.push_back(scratch.dataDir + "/" + entry->d_name);
        ::closedir(dir);
        for (const auto& file : files)
            ::unlink(file.c_str());
    }
    ::rmdir(scratch.dataDir.c_str());
}

std::vector<std::string> orphanedContainers(const std::string& psOutput, const std::string& machine,
                                            const std::function<std::string(pid_t)>& startTimeOf) {
    std::vector<std::string> orphans;
    std::istringstream lines(psOutput);
    std::string line;
    while (std::getline(lines, line)) {
        const auto tab = line.find('\t');
        if (tab == std::string::npos)
            continue;
        const std::string name = trimmed(line.substr(0, tab));
        if (!name.empty() && ownerGone(trimmed(line.substr(tab + 1)), machine, startTimeOf))
            orphans.push_back(name);
    }
    return orphans;
}

int sweepOrphanedContainers(ContainerEngine engine, const std::string& enginePath) {
    const std::string program = containerEnginePath(engine, enginePath);
    // docker's ps has .Label; podman's has the .Labels map.
    const std::string format = engine == ContainerEngine::Podman
                                   ? std::string("{{.Names}}\t{{index .Labels \"") + kContainerOwnerLabel + "\"}}"
                                   : std::string("{{.Names}}\t{{.Label \"") + kContainerOwnerLabel + "\"}}";
    const ProcessOutcome listed = runCapturing(
        {program, "ps", "--all", "--filter", std::string("label=") + kContainerLabel + "=1", "--format", format},
        false);
    sweepOrphanedScratch();
    if (!succeeded(listed))
        return 0;
    int removed = 0;
    for (const auto& name : orphanedContainers(listed.output, thisMachine(), processStartTime))
        if (succeeded(runCapturing({program, "rm", "--force", name})))
            ++removed;
    // Their containers are gone now: the placeholders they held can go too.
    sweepPlaceholderRecords({engine == ContainerEngine::Docker ? Backend::Docker : Backend::Podman});
    return removed;
}

Status writeContainerFiles(const std::string& seccompPath, const std::string& seccompJson,
                           const std::vector<DockerDataFile>& files, const SandboxProfile& profile,
                           const ProtectionPlan& protection, const std::optional<IdmappedView>& view) {
    if (auto ok = writeFile(seccompPath, seccompJson, 0600); !ok)
        return ok.error();
    for (const auto& file : files)
        if (auto ok = writeFile(file.hostPath, file.bytes, 0444); !ok)
            return ok.error();
    if (!view)
        return Ok{};
    // Through the real workspace: the engine, as root, could not create them in the view.
    if (auto ok = createPlaceholders(profile.workspaceSource, protection); !ok)
        return ok.error();
    if (auto ok = mountIdmappedView(*view); !ok)
        return makeError(ok.error().code,
                         ok.error().message +
                             ".\nThe container never runs as root, so it needs this view "
                             "to write a root-owned workspace. Give the workspace to a user (chown -R USER " +
                             view->source + "), or use --backend bwrap.");
    return Ok{};
}

Result<ContainerProcess> ContainerProcess::start(const PreparedContainer& container, const LaunchOptions& options,
                                                 int launcherDeathSignal) {
    const DockerRequest& request = container.request;
    if (auto ok = writeContainerFiles(request.seccompProfilePath, container.seccomp.json, container.command.files,
                                      container.profile, container.protection, container.command.workspaceView);
        !ok)
        return ok.error();
    std::vector<std::string> argv = container.command.argv;
    argv.front() = containerEnginePath(request.engine, request.enginePath);
    // Whatever the client left: a container it created after a kill, or one --rm did not remove.
    std::vector<std::string> remove{argv.front(), "rm", "--force", request.containerName};
    return spawn(std::move(argv), request.containerName, {std::move(remove)}, false, options, launcherDeathSignal);
}

Result<ContainerProcess> ContainerProcess::spawn(std::vector<std::string> words, std::string containerName,
                                                 std::vector<std::vector<std::string>> remove, bool removeAfterExit,
                                                 const LaunchOptions& options, int launcherDeathSignal) {
    const std::string program = words.front();
    if (program.find('/') == std::string::npos)
        return makeError(ErrorCode::NotFound, program + " is not installed or not on PATH. Install it, or use "
                                                        "--backend bwrap.");
    std::vector<char*> argv;
    for (const auto& word : words)
        argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);

    ContainerProcess process;
    process.m_engine = program;
    process.m_name = std::move(containerName);
    process.m_remove = std::move(remove);
    process.m_removeAfterExit = removeAfterExit;
    const pid_t parent = getpid();
    const int stdio[3] = {options.stdinFd, options.stdoutFd, options.stderrFd};
    // fork + execve with nothing but async-signal-safe calls in between: the client must not inherit the
    // caller's blocked signals, and gets launcherDeathSignal when the launcher dies, which it passes to the
    // container.
    const pid_t pid = ::fork();
    if (pid < 0)
        return makeError(ErrorCode::System, std::string("cannot start ") + program + ": " + std::strerror(errno));
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, launcherDeathSignal);
        if (::getppid() != parent)
            ::_exit(kEngineSetupFailed);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::setpgid(0, 0); // a terminal's ^C reaches the launcher, which stops the container itself
        for (int i = 0; i < 3; ++i) // the caller's pipes are above 2 (0, 1 and 2 are open), so none is overwritten
            if (stdio[i] >= 0 && ::dup2(stdio[i], i) < 0)
                ::_exit(kEngineSetupFailed);
        ::execve(argv[0], argv.data(), environ);
        ::_exit(127);
    }
    process.m_pid = pid;
    process.m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (process.m_pidfd < 0) {
        const int error = errno;
        process.kill();
        return makeError(ErrorCode::System, std::string("cannot watch the container's run client: ") +
                                            std::strerror(error));
    }
    if (process.m_removeAfterExit)
        if (auto janitor = process.startJanitor(); !janitor) {
            process.kill();
            return janitor.error();
        }
    return process;
}

Status ContainerProcess::startJanitor() {
    std::string script = "read -r _; timeout 60 " + shellCommandLine({m_engine, "wait", m_name}) + " >/dev/null 2>&1";
    for (const auto& command : m_remove)
        script += "; " + shellCommandLine(command) + " >/dev/null 2>&1";
    const std::vector<std::string> words{"/bin/sh", "-c", script};
    std::vector<char*> argv;
    for (const auto& word : words)
        argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System, std::string("cannot start the container's janitor: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid == 0) { // async-signal-safe calls only until execve
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::setsid(); // neither a terminal's ^C nor the launcher's process group takes it along
        const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        if (::dup2(fds[0], 0) < 0 || devnull < 0 || ::dup2(devnull, 1) < 0 || ::dup2(devnull, 2) < 0)
            ::_exit(127);
        ::execve(argv[0], argv.data(), environ);
        ::_exit(127);
    }
    const int error = errno;
    ::close(fds[0]);
    if (pid < 0) {
        ::close(fds[1]);
        return makeError(ErrorCode::System, std::string("cannot start the container's janitor: ") + std::strerror(error));
    }
    m_janitor = pid;
    m_janitorPipe = fds[1];
    return Ok{};
}

void ContainerProcess::dismissJanitor() {
    if (m_janitor > 0) {
        ::kill(m_janitor, SIGKILL);
        while (::waitpid(m_janitor, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    if (m_janitorPipe >= 0)
        ::close(m_janitorPipe);
    m_janitor = -1;
    m_janitorPipe = -1;
}

ContainerProcess::ContainerProcess(ContainerProcess&& other) noexcept
    : m_engine(std::move(other.m_engine)), m_name(std::move(other.m_name)), m_remove(std::move(other.m_remove)),
      m_removeAfterExit(other.m_removeAfterExit), m_removed(other.m_removed), m_pid(other.m_pid),
      m_pidfd(other.m_pidfd), m_janitor(other.m_janitor), m_janitorPipe(other.m_janitorPipe),
      m_killed(other.m_killed), m_timedOut(other.m_timedOut), m_exit(other.m_exit) {
    other.m_pid = -1;
    other.m_pidfd = -1;
    other.m_janitor = -1;
    other.m_janitorPipe = -1;
}

ContainerProcess::~ContainerProcess() {
    if (m_pid > 0 && !m_exit) {
        kill();
        int status = 0;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (m_pid > 0 && m_removeAfterExit && !m_removed)
        removeContainer();
    dismissJanitor();
    if (m_pidfd >= 0)
        ::close(m_pidfd);
}

void ContainerProcess::stopContainer() {
    // By name: the engine may have started the container although the client has not said so yet.
    runCapturing({m_engine, "kill", "--signal", "KILL", m_name});
    if (m_pidfd >= 0) {
        pollfd fd{m_pidfd, POLLIN, 0};
        int ready;
        while ((ready = ::poll(&fd, 1, static_cast<int>(std::chrono::milliseconds(kClientGrace).count()))) < 0 &&
               errno == EINTR) {
        }
        if (ready == 0)
            ::kill(m_pid, SIGKILL);
    } else {
        ::kill(m_pid, SIGKILL);
    }
    removeContainer();
}

void ContainerProcess::removeContainer() {
    m_removed = true;
    for (const auto& command : m_remove)
        runCapturing(command);
    dismissJanitor();
}

void ContainerProcess::terminate() {
    if (m_pid <= 0 || m_exit || m_killed)
        return;
    runCapturing({m_engine, "kill", "--signal", "TERM", m_name});
}

void ContainerProcess::kill() {
    if (m_pid <= 0 || m_exit || m_killed)
        return;
    m_killed = true;
    stopContainer();
}

SandboxExit ContainerProcess::reap(int waitStatus) {
    SandboxExit exit;
    if (WIFEXITED(waitStatus)) {
        exit.exitCode = WEXITSTATUS(waitStatus);
        exit.reason = exit.exitCode == kEngineSetupFailed ? SandboxExit::Reason::SetupFailed
                                                          : SandboxExit::Reason::Exited;
    } else {
        exit.reason = SandboxExit::Reason::Signaled;
        exit.exitCode = 128 + WTERMSIG(waitStatus);
    }
    if (m_timedOut)
        exit.reason = SandboxExit::Reason::TimedOut;
    else if (m_killed)
        exit.reason = SandboxExit::Reason::Killed;
    return exit;
}

std::optional<SandboxExit> ContainerProcess::wait(std::optional<std::chrono::milliseconds> timeout,
                                                  int interruptFd) {
    if (m_exit)
        return m_exit;
    const auto deadline = timeout ? std::chrono::steady_clock::now() + *timeout
                                  : std::chrono::steady_clock::time_point::max();
    while (true) {
        int waitMs = -1;
        if (timeout && !m_timedOut && !m_killed) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            waitMs = static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()));
        }
        pollfd fds[2] = {{m_pidfd, POLLIN, 0}, {interruptFd, POLLIN, 0}};
        const int ready = ::poll(fds, interruptFd >= 0 ? 2 : 1, waitMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            int status = 0;
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
            m_exit = reap(status);
            return m_exit;
        }
        if (ready > 0 && interruptFd >= 0 && fds[1].revents)
            return std::nullopt;
        if (ready == 0) { // the deadline
            m_timedOut = true;
            stopContainer();
        }
    }
}

} // namespace warren::sandbox
