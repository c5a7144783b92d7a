#include "agent_core/process/ProcessRunner.h"

#include "agent_core/process/ChildReaper.h"
#include "agent_core/process/OutputCap.h"
#include "agent_core/process/Utf8Chunker.h"
#include "common/UniqueFd.h"
#include "common/Utf8.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace warren::agent {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr std::size_t kReadSize = 64 * 1024;
// Once the main process has exited, a background writer that still holds the pipes is read for at most
// this much before it is killed: "drain what is there", not "follow a writer that never stops".
constexpr std::size_t kDrainBudget = 1024 * 1024;
// Without a pidfd (kernel before 5.3) the main process's exit is noticed by looking this often.
constexpr auto kExitPollInterval = std::chrono::milliseconds(20);
// How often stopRequested() is asked when there is no stop fd to wait on.
constexpr auto kStopPollInterval = std::chrono::milliseconds(50);

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

std::string searchPath(const ProcessSpec& spec) {
    for (const auto& entry : spec.environment)
        if (entry.rfind("PATH=", 0) == 0)
            return entry.substr(5);
    if (!spec.environment.empty())
        return {};
    const char* path = std::getenv("PATH");
    return path ? path : "/usr/local/bin:/usr/bin:/bin";
}

// execvp's search, done before fork: the child of a threaded process may only make async-signal-safe calls.
Result<std::string> resolveProgram(const ProcessSpec& spec) {
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

std::string describeStep(ChildStep step, const ProcessSpec& spec) {
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

// Output of both streams, in arrival order, into the cap and out to onOutput.
class OutputCollector {
public:
    enum Stream : std::size_t { Stdout = 0, Stderr = 1 };

    explicit OutputCollector(const ProcessSpec& spec) : m_spec(spec), m_cap(spec.capBytes) {}

    void add(Stream stream, std::string_view bytes) { deliver(stream, m_chunkers[stream].push(bytes)); }

    void finish() {
        deliver(Stdout, m_chunkers[Stdout].finish());
        deliver(Stderr, m_chunkers[Stderr].finish());
    }

    const OutputCap& cap() const { return m_cap; }

private:
    static std::string_view name(Stream stream) { return stream == Stdout ? "stdout" : "stderr"; }

    void deliver(Stream stream, std::string_view chunk) {
        if (chunk.empty())
            return;
        m_cap.append(chunk);
        if (!m_spec.onOutput || m_streamCut)
            return;
        const std::uint64_t allowed = m_spec.streamLimitBytes - m_streamed;
        if (chunk.size() <= allowed) {
            m_streamed += chunk.size();
            m_spec.onOutput(name(stream), chunk);
            return;
        }
        std::string_view part = chunk.substr(0, static_cast<std::size_t>(allowed));
        part.remove_suffix(incompleteUtf8Suffix(part));
        if (!part.empty())
            m_spec.onOutput(name(stream), part);
        m_streamCut = true;
        m_spec.onOutput(name(stream), "\n[output past " + std::to_string(m_spec.streamLimitBytes) +
                                          " bytes is not streamed; it is still counted and capped]\n");
    }

    const ProcessSpec& m_spec;
    OutputCap m_cap;
    std::array<Utf8Chunker, 2> m_chunkers;
    std::uint64_t m_streamed = 0;
    bool m_streamCut = false;
};

// One read; closes the pipe at EOF or on an error. Returns the bytes read (0 when nothing was there).
std::size_t readOnce(UniqueFd& pipe, OutputCollector::Stream stream, OutputCollector& output,
                     std::vector<char>& buffer) {
    while (pipe.valid()) {
        const ssize_t n = ::read(pipe.get(), buffer.data(), buffer.size());
        if (n > 0) {
            output.add(stream, std::string_view(buffer.data(), static_cast<std::size_t>(n)));
            return static_cast<std::size_t>(n);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        pipe.reset();
    }
    return 0;
}

// Reads what is there now, up to budget bytes, without waiting for more.
void drain(UniqueFd& pipe, OutputCollector::Stream stream, OutputCollector& output, std::vector<char>& buffer,
           std::size_t budget) {
    std::size_t total = 0;
    while (pipe.valid() && total < budget) {
        const std::size_t n = readOnce(pipe, stream, output, buffer);
        if (n == 0)
            return;
        total += n;
    }
}

bool exited(pid_t pid) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

int exitCodeOf(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 128;
}

int pollTimeout(Clock::time_point wake, Clock::time_point now) {
    if (wake == Clock::time_point::max())
        return -1;
    if (wake <= now)
        return 0;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(wake - now) + std::chrono::milliseconds(1);
    return static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), INT_MAX));
}

// The started process: its pid names its process group too.
struct RunningChild {
    pid_t pid = -1;
    UniqueFd pidfd; // readable once it exits; invalid on a kernel without pidfd_open
    UniqueFd stdoutPipe;
    UniqueFd stderrPipe;
};

// input: the child's stdin (closed here once the child has it); invalid: /dev/null.
Result<RunningChild> startChild(const ProcessSpec& spec, UniqueFd input) {
    const std::string& program = spec.argv.front();
    auto path = resolveProgram(spec);
    if (!path)
        return path.error();

    input.reset(aboveStdio(input.valid() ? input.release() : ::open("/dev/null", O_RDONLY | O_CLOEXEC)));
    if (!input.valid())
        return startError(program, "stdin: ", errno);
    RunningChild child;
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

// Streams the output until the main process exits, ending the group at the deadline (SIGTERM, then
// SIGKILL after the grace) or at a stop (SIGKILL). The main process is left unreaped, so that its pid
// still names the group.
void superviseUntilExit(const ProcessSpec& spec, RunningChild& child, OutputCollector& output,
                        std::vector<char>& buffer, ProcessResult& result) {
    Clock::time_point killAt = Clock::time_point::max(); // SIGKILL when the grace after SIGTERM ends
    bool killed = false;
    const auto killGroup = [&](int signal) {
        ::kill(-child.pid, signal);
        killed = killed || signal == SIGKILL;
    };
    const bool pollStopRequested = spec.stopFd < 0 && spec.stopRequested;

    while (true) {
        const auto now = Clock::now();
        if (!result.timedOut && !killed && now >= spec.deadline) {
            result.timedOut = true;
            killGroup(SIGTERM);
            killAt = now + kTerminateGrace;
        }
        if (!killed && now >= killAt)
            killGroup(SIGKILL);
        if (!killed && pollStopRequested && spec.stopRequested()) {
            result.stopped = true;
            killGroup(SIGKILL);
        }

        Clock::time_point wake = killed ? Clock::time_point::max() : std::min(spec.deadline, killAt);
        if (!child.pidfd.valid())
            wake = std::min(wake, now + kExitPollInterval);
        if (!killed && pollStopRequested)
            wake = std::min(wake, now + kStopPollInterval);

        std::array<pollfd, 4> fds{};
        std::size_t count = 0;
        const auto watch = [&](int fd) -> const pollfd* {
            if (fd < 0)
                return nullptr;
            fds[count] = pollfd{fd, POLLIN, 0};
            return &fds[count++];
        };
        const pollfd* outEntry = watch(child.stdoutPipe.get());
        const pollfd* errEntry = watch(child.stderrPipe.get());
        const pollfd* exitEntry = watch(child.pidfd.get());
        const pollfd* stopEntry = watch(killed ? -1 : spec.stopFd);
        const int ready = ::poll(fds.data(), count, pollTimeout(wake, now));
        if (ready < 0 && errno != EINTR)
            return; // cannot wait any more: the caller ends it as if it had exited
        if (ready > 0) {
            if (stopEntry && stopEntry->revents != 0) {
                result.stopped = true;
                killGroup(SIGKILL);
            }
            if (outEntry && outEntry->revents != 0)
                readOnce(child.stdoutPipe, OutputCollector::Stdout, output, buffer);
            if (errEntry && errEntry->revents != 0)
                readOnce(child.stderrPipe, OutputCollector::Stderr, output, buffer);
            if (exitEntry && exitEntry->revents != 0)
                return;
        }
        if (!child.pidfd.valid() && exited(child.pid))
            return;
    }
}

// The main process has exited. Whatever it left in the background may hold the pipes open for ever: take
// what is there now, then kill the group and everything that escaped it, then read the pipes to EOF.
// Returns the main process's wait status.
int endEverything(RunningChild& child, OutputCollector& output, std::vector<char>& buffer) {
    drain(child.stdoutPipe, OutputCollector::Stdout, output, buffer, kDrainBudget);
    drain(child.stderrPipe, OutputCollector::Stderr, output, buffer, kDrainBudget);
    ::kill(-child.pid, SIGKILL);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    killAndReapDescendants();
    drain(child.stdoutPipe, OutputCollector::Stdout, output, buffer, kDrainBudget);
    drain(child.stderrPipe, OutputCollector::Stderr, output, buffer, kDrainBudget);
    output.finish();
    return status;
}

} // namespace

Result<ProcessResult> runProcess(const ProcessSpec& spec) {
    const auto started = Clock::now();
    UniqueFd input(spec.stdinFd);
    if (spec.argv.empty())
        return makeError(ErrorCode::InvalidArgument, "cannot start a process: no program given");
    auto child = startChild(spec, std::move(input));
    if (!child)
        return child.error();

    OutputCollector output(spec);
    std::vector<char> buffer(kReadSize);
    ProcessResult result;
    superviseUntilExit(spec, *child, output, buffer, result);
    const int status = endEverything(*child, output, buffer);

    result.exitCode = result.timedOut ? 124 : exitCodeOf(status);
    result.output = output.cap().text();
    result.truncated = output.cap().truncated();
    result.totalBytes = output.cap().totalBytes();
    result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    return result;
}

} // namespace warren::agent
