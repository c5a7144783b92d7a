#include "agent_core/process/ChildStart.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace warren::agent {
namespace {

namespace fs = std::filesystem;

Error startError(const std::string& program, const std::string& what, int error) {
    return makeError(error == ENOENT ? ErrorCode::NotFound : ErrorCode::System,
                     "cannot start " + program + ": " + what + std::strerror(error));
}

// The pipes must never land on 0..2: the child's dup2 onto its stdio would then clobber one of them.
int aboveStdio(int fd) {
    if (fd < 0 || fd > 2)
        return fd;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    return moved;
}

bool makePipe(UniqueFd& readEnd, UniqueFd& writeEnd) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return false;
    readEnd.reset(aboveStdio(fds[0]));
    writeEnd.reset(aboveStdio(fds[1]));
    // Only the parent's end: the child writes blocking, as programs expect of their stdout.
    return readEnd.valid() && writeEnd.valid() && ::fcntl(readEnd.get(), F_SETFL, O_NONBLOCK) == 0;
}

std::string searchPath(const ChildCommand& spec) {
    for (const auto& entry : spec.environment)
        if (entry.rfind("PATH=", 0) == 0)
            return entry.substr(5);
    if (!spec.environment.empty())
        return {};
    const char* path = std::getenv("PATH");
    return path ? path : "/usr/local/bin:/usr/bin:/bin";
}

// execvp's search, done before fork: the child of a threaded process may only make async-signal-safe calls.
Result<std::string> resolveProgram(const ChildCommand& spec) {
    const std::string& name = spec.argv.front();
    if (name.find('/') != std::string::npos)
        return name;
    if (name.empty())
        return startError("\"\"", "", ENOENT);
    const std::string path = searchPath(spec);
    int failure = ENOENT;
    std::size_t begin = 0;
    while (begin <= path.size()) {
        std::size_t end = path.find(':', begin);
        if (end == std::string::npos)
            end = path.size();
        fs::path directory = path.substr(begin, end - begin);
        begin = end + 1;
        if (directory.empty())
            directory = ".";
        if (directory.is_relative() && !spec.workdir.empty())
            directory = spec.workdir / directory;
        const std::string candidate = (directory / name).string();
        struct stat info {};
        if (::stat(candidate.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
            continue;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        failure = EACCES;
    }
    return startError(name, "", failure);
}

// What the child reports through the exec-error pipe when it fails before exec.
enum class ChildStep : int { Stdio, Workdir, CloseFds, Exec };
struct ChildFailure {
    ChildStep step;
    int error;
};

struct ChildPlan {
    const char* path = nullptr;
    char* const* argv = nullptr;
    char* const* envp = nullptr;
    const char* workdir = nullptr; // nullptr = stay
    std::array<int, 3> stdio{-1, -1, -1};
    int errorFd = -1;
    pid_t parent = 0;
};

[[noreturn]] void childFail(int errorFd, ChildStep step) {
    const ChildFailure failure{step, errno};
    (void)!::write(errorFd, &failure, sizeof failure);
    _exit(127);
}

// Between fork and exec: async-signal-safe calls only.
[[noreturn]] void runChild(const ChildPlan& plan) {
    // A killed agent must not leave its direct child running (deeper ones die with the group or are
    // orphans of a dead sandbox). PDEATHSIG follows the forking thread: runProcess waits on that thread.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != plan.parent)
        _exit(127);
    ::setpgid(0, 0);
    // The agent blocks or ignores signals for its own reasons (a signal thread, SIGPIPE); a tool starts
    // with the defaults, as it would from a shell.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig)
        ::sigaction(sig, &defaults, nullptr);
    for (int target = 0; target < 3; ++target)
        if (::dup2(plan.stdio[static_cast<std::size_t>(target)], target) < 0)
            childFail(plan.errorFd, ChildStep::Stdio);
    if (plan.workdir && ::chdir(plan.workdir) != 0)
        childFail(plan.errorFd, ChildStep::Workdir);
    // Nothing of the agent's crosses exec: not the protocol channel, not a cancellation eventfd.
    if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        if (errno != ENOSYS && errno != EINVAL)
            childFail(plan.errorFd, ChildStep::CloseFds);
        for (int fd = 3; fd < 65536; ++fd) // a kernel before 5.11
            ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    ::execve(plan.path, plan.argv, plan.envp);
    childFail(plan.errorFd, ChildStep::Exec);
}

std::string describeStep(ChildStep step, const ChildCommand& spec) {
    switch (step) {
    case ChildStep::Stdio:
        return "setting up stdin/stdout/stderr: ";
    case ChildStep::Workdir:
        return "working directory " + spec.workdir.string() + ": ";
    case ChildStep::CloseFds:
        return "closing inherited descriptors: ";
    case ChildStep::Exec:
        break;
    }
    return "";
}

} // namespace

Result<StartedChild> startChild(const ChildCommand& spec, UniqueFd input) {
    if (spec.argv.empty())
        return makeError(ErrorCode::InvalidArgument, "cannot start a process: no program given");
    const std::string& program = spec.argv.front();
    auto path = resolveProgram(spec);
    if (!path)
        return path.error();

    input.reset(aboveStdio(input.valid() ? input.release() : ::open("/dev/null", O_RDONLY | O_CLOEXEC)));
    if (!input.valid())
        return startError(program, "stdin: ", errno);
    StartedChild child;
    UniqueFd outWrite, errWrite, failRead, failWrite;
    if (!makePipe(child.stdoutPipe, outWrite) || !makePipe(child.stderrPipe, errWrite) ||
        !makePipe(failRead, failWrite))
        return startError(program, "pipe: ", errno);
    ::fcntl(failRead.get(), F_SETFL, 0); // the parent blocks on it until exec

    std::vector<char*> argv;
    for (const auto& word : spec.argv)
        argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const auto& entry : spec.environment)
        envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
    const std::string workdir = spec.workdir.string();

    ChildPlan plan;
    plan.path = path->c_str();
    plan.argv = argv.data();
    plan.envp = spec.environment.empty() ? environ : envp.data();
    plan.workdir = workdir.empty() ? nullptr : workdir.c_str();
    plan.stdio = {input.get(), outWrite.get(), errWrite.get()};
    plan.errorFd = failWrite.get();
    plan.parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0)
        return startError(program, "fork: ", errno);
    if (pid == 0)
        runChild(plan);
    // Also here, so that a kill of the group cannot come before the child's own setpgid.
    ::setpgid(pid, pid);
    failWrite.reset();

    ChildFailure failure{};
    ssize_t n;
    do
        n = ::read(failRead.get(), &failure, sizeof failure);
    while (n < 0 && errno == EINTR);
    if (n == sizeof failure) {
        ::waitpid(pid, nullptr, 0);
        return startError(program, describeStep(failure.step, spec), failure.error);
    }
    child.pid = pid;
    child.pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    return child;
}

} // namespace warren::agent
