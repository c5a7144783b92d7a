#include "sandbox/bwrap/Launcher.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"
#include "sandbox/ProcStat.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace warren::sandbox {
namespace {

Error systemError(const std::string& what) {
    return makeError(ErrorCode::System, what + ": " + std::strerror(errno));
}

// The bytes bwrap reads from a --*-fd option, in a sealed memfd so nothing can change them in flight.
Result<UniqueFd> sealedMemfd(const DataFd& data) {
    UniqueFd fd(memfd_create("warren-sandbox-data", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (fd.get() < 0)
        return systemError("memfd_create");
    if (!writeAll(fd.get(), data.bytes))
        return systemError("writing " + data.purpose + " for the sandbox");
    fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    if (lseek(fd.get(), 0, SEEK_SET) != 0)
        return systemError("lseek");
    return fd;
}

int pidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

} // namespace

pid_t parentOf(pid_t pid) {
    const auto parent = procStatField(pid, 4);
    return parent ? static_cast<pid_t>(std::strtol(parent->c_str(), nullptr, 10)) : -1;
}

int openChildPidfd(pid_t pid, pid_t parent) {
    const int fd = pidfdOpen(pid);
    if (fd < 0)
        return -1;
    // The pidfd holds whichever process has that number now; only bwrap's own child is the one meant (a
    // number freed and reused by another process must never be waited on or killed).
    if (parentOf(pid) != parent) {
        ::close(fd);
        return -1;
    }
    return fd;
}

namespace {

// Everything the child does between fork and exec: only async-signal-safe calls.
struct ChildPlan {
    const char* path = nullptr;
    char* const* argv = nullptr;
    const std::vector<RlimitSetting>* rlimits = nullptr;
    const std::vector<int>* cgroupJoinFds = nullptr; // written "0" to join (Cgroup::joinFromChild)
    int stdioFds[3] = {-1, -1, -1};
    std::vector<int> sources; // fds to place at kStatusFd, kStatusFd+1, ...
    int execErrorFd = -1;
    pid_t parent = 0;
};

[[noreturn]] void childFail(int errorFd, int error) {
    (void)!::write(errorFd, &error, sizeof error);
    _exit(127);
}

[[noreturn]] void runChild(const ChildPlan& plan) {
    // Die with the launcher even if it is SIGKILLed; bwrap's --die-with-parent carries it inward.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != plan.parent)
        _exit(127);
    // The launcher may block or ignore signals for itself; the sandbox starts with the defaults.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
        signal(sig, SIG_DFL);
    // Its own process group: a terminal's Ctrl-C reaches the launcher, which then ends the whole sandbox.
    setpgid(0, 0);
    if (plan.cgroupJoinFds && !Cgroup::joinFromChild(*plan.cgroupJoinFds))
        childFail(plan.execErrorFd, errno ? errno : EPERM);
    for (int i = 0; i < 3; ++i)
        if (plan.stdioFds[i] >= 0 && dup2(plan.stdioFds[i], i) < 0)
            childFail(plan.execErrorFd, errno);
    // Lift every source above the target range first so that no dup2 overwrites a source still needed.
    const int firstTarget = BwrapCommand::kStatusFd;
    const int lifted = firstTarget + static_cast<int>(plan.sources.size()) + 1;
    int errorFd = fcntl(plan.execErrorFd, F_DUPFD_CLOEXEC, lifted + static_cast<int>(plan.sources.size()));
    if (errorFd < 0)
        childFail(plan.execErrorFd, errno);
    int moved[64];
    const std::size_t count = std::min<std::size_t>(plan.sources.size(), 64);
    for (std::size_t i = 0; i < count; ++i) {
        moved[i] = fcntl(plan.sources[i], F_DUPFD_CLOEXEC, lifted);
        if (moved[i] < 0)
            childFail(errorFd, errno);
    }
    for (std::size_t i = 0; i < count; ++i)
        if (dup2(moved[i], firstTarget + static_cast<int>(i)) < 0) // dup2 clears close-on-exec
            childFail(errorFd, errno);
    // Nothing else of the launcher's crosses into the sandbox (the error pipe closes on exec too).
    const unsigned firstFree = static_cast<unsigned>(firstTarget) + static_cast<unsigned>(count);
    if (syscall(SYS_close_range, firstFree, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
        childFail(errorFd, errno);
    // The limits last, once no descriptor is made any more: the child still holds every descriptor of the
    // launcher's (closed only at exec), and under a lower RLIMIT_NOFILE a control plane holding more than that
    // could not dup one more (EMFILE), whatever the sandbox itself would have open.
    for (const auto& limit : *plan.rlimits) {
        // Only ever lower a limit: one above the current hard limit is already enforced by that one.
        rlimit current{};
        getrlimit(limit.resource, &current);
        rlimit wanted{std::min(limit.soft, current.rlim_max), std::min(limit.hard, current.rlim_max)};
        if (setrlimit(limit.resource, &wanted) != 0)
            childFail(errorFd, errno);
    }
    // bwrap gets an empty environment: it is the sandbox's pid 1, so its /proc/1/environ is readable from
    // inside, and the launcher's environment may hold secrets (a control plane's API keys). The sandbox's
    // own variables are all passed as --setenv arguments.
    static char* const kNoEnvironment[] = {nullptr};
    execve(plan.path, plan.argv, kNoEnvironment);
    childFail(errorFd, errno);
}

// fork(), with the child born in the v2 cgroup (clone3 CLONE_INTO_CGROUP) where there is one, and told
// which v1 files to join through; see Cgroup for why not cgroup.procs.
pid_t forkIntoCgroup(const Cgroup* cgroup, ChildPlan& plan) {
    if (!cgroup)
        return fork();
    plan.cgroupJoinFds = &cgroup->v1TaskFds();
    if (cgroup->v2DirectoryFd() < 0)
        return fork();
    clone_args args{};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<__u64>(cgroup->v2DirectoryFd());
    // Like fork(), but without glibc's bookkeeping: the child calls nothing but plain system calls
    // before it execs.
    const long pid = syscall(SYS_clone3, &args, sizeof args);
    if (pid >= 0 || (errno != ENOSYS && errno != E2BIG && errno != EINVAL))
        return static_cast<pid_t>(pid);
    plan.cgroupJoinFds = &cgroup->procsFds(); // a kernel before 5.7
    return fork();
}

} // namespace

Result<SandboxProcess> SandboxProcess::start(const BwrapCommand& command, const LimitPlan& limits,
                                             std::optional<Cgroup> cgroup, const LaunchOptions& options) {
    if (command.argv.empty())
        return makeError(ErrorCode::InvalidArgument, "empty bwrap command");
    if (command.dataFds.size() > 60)
        return makeError(ErrorCode::InvalidArgument, "too many data descriptors for one sandbox");

    SandboxProcess process;
    process.m_cgroup = std::move(cgroup);
    process.m_commandIsInit = command.commandIsInit;

    std::vector<UniqueFd> dataFds;
    for (const auto& data : command.dataFds) {
        auto fd = sealedMemfd(data);
        if (!fd)
            return fd.error();
        dataFds.push_back(std::move(*fd));
    }
    int statusPipe[2], errorPipe[2];
    if (pipe2(statusPipe, O_CLOEXEC) != 0)
        return systemError("pipe2");
    UniqueFd statusRead(statusPipe[0]), statusWrite(statusPipe[1]);
    if (pipe2(errorPipe, O_CLOEXEC) != 0)
        return systemError("pipe2");
    UniqueFd errorRead(errorPipe[0]), errorWrite(errorPipe[1]);

    const std::vector<std::string> execArgv = command.execArgv();
    std::vector<char*> argv;
    for (const auto& word : execArgv)
        argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);

    ChildPlan plan;
    plan.path = command.argv[0].c_str();
    plan.argv = argv.data();
    plan.rlimits = &limits.rlimits;
    plan.stdioFds[0] = options.stdinFd;
    plan.stdioFds[1] = options.stdoutFd;
    plan.stdioFds[2] = options.stderrFd;
    plan.sources.push_back(statusWrite.get());
    for (const auto& fd : dataFds)
        plan.sources.push_back(fd.get());
    plan.execErrorFd = errorWrite.get();
    plan.parent = getpid();

    const pid_t pid = forkIntoCgroup(process.m_cgroup ? &*process.m_cgroup : nullptr, plan);
    if (pid < 0)
        return systemError("fork");
    if (pid == 0)
        runChild(plan);

    process.m_pid = pid;
    statusWrite.reset();
    errorWrite.reset();
    dataFds.clear();

    int childErrno = 0;
    ssize_t n;
    do
        n = ::read(errorRead.get(), &childErrno, sizeof childErrno);
    while (n < 0 && errno == EINTR);
    if (n == sizeof childErrno) {
        int ignored;
        waitpid(pid, &ignored, 0);
        process.m_pid = -1;
        return makeError(childErrno == ENOENT ? ErrorCode::NotFound : ErrorCode::System,
                         "cannot start " + command.argv[0] + ": " + std::strerror(childErrno));
    }
    process.m_pidfd = pidfdOpen(pid);
    if (process.m_pidfd < 0)
        return systemError("pidfd_open");
    process.m_statusFd = statusRead.release();
    return process;
}

SandboxProcess::SandboxProcess(SandboxProcess&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_pidfd(std::exchange(other.m_pidfd, -1)),
      m_statusFd(std::exchange(other.m_statusFd, -1)), m_statusText(std::move(other.m_statusText)),
      m_innerPid(other.m_innerPid), m_commandIsInit(other.m_commandIsInit),
      m_innerPidfd(std::exchange(other.m_innerPidfd, -1)),
      m_killed(other.m_killed), m_timedOut(other.m_timedOut), m_cgroup(std::move(other.m_cgroup)),
      m_exit(other.m_exit) {
    other.m_cgroup.reset();
}

SandboxProcess::~SandboxProcess() {
    if (m_pid > 0 && !m_exit) {
        kill();
        wait(std::nullopt);
    }
    for (int fd : {m_pidfd, m_statusFd, m_innerPidfd})
        if (fd >= 0)
            ::close(fd);
}

void SandboxProcess::readStatus() {
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(m_statusFd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ::close(m_statusFd);
            m_statusFd = -1;
            return;
        }
        m_statusText.append(buffer, static_cast<std::size_t>(n));
        // bwrap writes { "child-pid": N, ... } once its child exists, { "exit-code": N } when the command
        // it exec'd has exited.
        if (m_innerPid < 0) {
            const auto key = m_statusText.find("\"child-pid\"");
            if (key != std::string::npos) {
                const auto digits = m_statusText.find_first_of("0123456789", key);
                if (digits != std::string::npos) {
                    m_innerPid = static_cast<pid_t>(std::strtol(m_statusText.c_str() + digits, nullptr, 10));
                    m_innerPidfd = openChildPidfd(m_innerPid, m_pid);
                }
            }
        }
        if (static_cast<std::size_t>(n) < sizeof buffer)
            return;
    }
}

void SandboxProcess::kill() {
    if (m_pid <= 0 || m_exit)
        return;
    m_killed = true;
    // bwrap's inner init has PR_SET_PDEATHSIG(SIGKILL), and its death empties the pid namespace; the
    // cgroup catches anything that could have left it.
    ::kill(m_pid, SIGKILL);
    if (m_innerPid > 0 && m_innerPidfd >= 0)
        syscall(SYS_pidfd_send_signal, m_innerPidfd, SIGKILL, nullptr, 0);
    if (m_cgroup)
        m_cgroup->killAll();
}

void SandboxProcess::terminate() {
    if (m_pid <= 0 || m_exit || m_innerPid <= 0)
        return;
    if (m_commandIsInit) { // from outside its namespace, which the command takes as its control plane's
        if (m_innerPidfd >= 0)
            syscall(SYS_pidfd_send_signal, m_innerPidfd, SIGTERM, nullptr, 0);
        return;
    }
    const std::string children =
        "/proc/" + std::to_string(m_innerPid) + "/task/" + std::to_string(m_innerPid) + "/children";
    std::ifstream list(children);
    pid_t child = 0;
    while (list >> child)
        ::kill(child, SIGTERM);
}

void SandboxProcess::waitForInnerTree() {
    // The sandbox's pid 1 exits only after every process in its namespace is gone: once its pidfd is
    // readable, nothing of the sandbox is left running.
    if (m_innerPidfd >= 0) {
        pollfd p{m_innerPidfd, POLLIN, 0};
        while (poll(&p, 1, -1) < 0 && errno == EINTR) {
        }
        waitpid(m_innerPid, nullptr, WNOHANG); // we reap it if we are its subreaper
    }
}

SandboxExit SandboxProcess::reap(int waitStatus) {
    while (m_statusFd >= 0)
        readStatus();
    waitForInnerTree();
    SandboxExit result;
    if (m_cgroup) {
        result.oomKilled = m_cgroup->oomKilled();
        result.pidsLimitHit = m_cgroup->pidsLimitHit();
    }
    if (m_timedOut) {
        result.reason = SandboxExit::Reason::TimedOut;
        result.exitCode = 124;
    } else if (m_killed) {
        result.reason = SandboxExit::Reason::Killed;
        result.exitCode = 128 + SIGKILL;
    } else if (WIFEXITED(waitStatus) && m_statusText.find("\"exit-code\"") == std::string::npos) {
        // bwrap reports the exit code only when its child finished setting up and exec'd the command:
        // without it, the 1 bwrap exits with is its own failure (a mount, a namespace), not the command's.
        result.reason = SandboxExit::Reason::SetupFailed;
        result.exitCode = 125;
    } else if (WIFEXITED(waitStatus)) {
        // bwrap exits with the command's status, and with 128 + n when a signal killed it.
        result.exitCode = WEXITSTATUS(waitStatus);
        result.reason = result.exitCode > 128 ? SandboxExit::Reason::Signaled : SandboxExit::Reason::Exited;
    } else {
        result.reason = SandboxExit::Reason::Signaled;
        result.exitCode = 128 + WTERMSIG(waitStatus);
    }
    m_exit = result;
    m_cgroup.reset(); // kills whatever is left in it and removes it
    return result;
}

std::optional<SandboxExit> SandboxProcess::wait(std::optional<std::chrono::milliseconds> timeout, int interruptFd) {
    if (m_exit)
        return m_exit;
    using Clock = std::chrono::steady_clock;
    const auto deadline = timeout ? std::optional(Clock::now() + *timeout) : std::nullopt;
    for (;;) {
        pollfd fds[3] = {{m_pidfd, POLLIN, 0}, {m_statusFd, POLLIN, 0}, {interruptFd, POLLIN, 0}};
        int waitMs = -1;
        if (deadline && !m_killed) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
            waitMs = static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()));
        }
        const int ready = poll(fds, 3, waitMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0) {
            m_timedOut = true;
            kill();
            continue;
        }
        if (fds[1].revents)
            readStatus();
        if (fds[0].revents) {
            int status = 0;
            while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
            return reap(status);
        }
        if (interruptFd >= 0 && fds[2].revents)
            return std::nullopt;
    }
}

} // namespace warren::sandbox
