#include "agent_core/process/ProcessRunner.h"

#include "agent_core/process/ChildReaper.h"
#include "agent_core/process/ChildStart.h"
#include "agent_core/process/PollTimeout.h"
#include "agent_core/process/OutputCap.h"
#include "agent_core/process/Utf8Chunker.h"
#include "common/UniqueFd.h"
#include "common/Utf8.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace warren::agent {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadSize = 64 * 1024;
// Once the main process has exited, a background writer that still holds the pipes is read for at most
// this much before it is killed: "drain what is there", not "follow a writer that never stops".
constexpr std::size_t kDrainBudget = 1024 * 1024;
// Without a pidfd (kernel before 5.3) the main process's exit is noticed by looking this often.
constexpr auto kExitPollInterval = std::chrono::milliseconds(20);
// How often stopRequested() is asked when there is no stop fd to wait on.
constexpr auto kStopPollInterval = std::chrono::milliseconds(50);

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

// Streams the output until the main process exits, ending the group at the deadline (SIGTERM, then
// SIGKILL after the grace) or at a stop (SIGKILL). The main process is left unreaped, so that its pid
// still names the group.
void superviseUntilExit(const ProcessSpec& spec, StartedChild& child, OutputCollector& output,
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
int endEverything(StartedChild& child, OutputCollector& output, std::vector<char>& buffer) {
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
    auto child = startChild({spec.argv, spec.workdir, spec.environment}, std::move(input));
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
