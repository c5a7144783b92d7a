#include "agent_core/mcp/McpStdioConnection.h"

#include "agent_core/process/ChildReaper.h"
#include "agent_core/process/ChildStart.h"
#include "agent_core/process/PollTimeout.h"
#include "agent_core/protocol/SetupNotices.h"
#include "agent_core/tools/ToolText.h"
#include "common/Utf8.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

namespace warren::agent {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kReadSize = 64 * 1024;
// Read from the server in one wake before the deadline and the stop are looked at again: a server that
// never stops writing cannot keep a request from timing out.
constexpr std::size_t kReadPerWake = 1024 * 1024;
// Queued for the server and not yet read by it: past this, the server is not reading its stdin.
constexpr std::size_t kMaxOutgoingBytes = 16 * 1024 * 1024;
// Without a pidfd (kernel before 5.3) an exit is noticed by looking this often; without a stop fd, a stop.
constexpr auto kPollInterval = std::chrono::milliseconds(50);
// Once its stdout or stdin closed, how long a server has to be seen exiting, so that the message says how
// it ended rather than only that a pipe closed.
constexpr auto kExitAfterPipeClosed = std::chrono::seconds(1);
// Bytes of a line that is not JSON-RPC quoted in the message that closes the connection.
constexpr std::size_t kQuotedBytes = 200;

std::string quotedLine(const std::string& line) {
    return json(shortenLine(validUtf8(line), kQuotedBytes))
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<std::string> serverEnvironment(const std::vector<std::string>& environment,
                                           const McpServer& server) {
    std::vector<std::string> out = environment;
    for (const auto& [name, value] : server.env) {
        const std::string prefix = name + "=";
        std::erase_if(out, [&](const std::string& entry) { return entry.starts_with(prefix); });
        out.push_back(prefix + value);
    }
    return out;
}

} // namespace

Result<std::unique_ptr<McpStdioConnection>> McpStdioConnection::launch(const McpServer& server,
                                                             const std::vector<std::string>& environment,
                                                             const std::filesystem::path& workdir) {
    const std::string label = protocol::mcpServerLabel(server.name);
    if (server.transport != McpTransport::Stdio)
        return makeError(ErrorCode::InvalidArgument, label + " is a remote (" +
                                                         std::string(toString(server.transport)) + ") server");
    // A socket, not a pipe, for its stdin: a write to a server that is gone fails with EPIPE (MSG_NOSIGNAL)
    // and never raises SIGPIPE in the agent.
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        return makeError(ErrorCode::System,
                         label + " could not be started: socketpair: " + std::strerror(errno));
    UniqueFd ours(ends[0]);
    UniqueFd theirs(ends[1]);
    ::shutdown(theirs.get(), SHUT_WR); // the server's stdin is for reading
    if (::fcntl(ours.get(), F_SETFL, O_NONBLOCK) != 0)
        return makeError(ErrorCode::System, label + " could not be started: " + std::strerror(errno));

    ChildCommand command;
    command.argv.push_back(server.command);
    command.argv.insert(command.argv.end(), server.args.begin(), server.args.end());
    command.workdir = workdir;
    command.environment = serverEnvironment(environment, server);
    auto child = startChild(command, std::move(theirs));
    if (!child)
        return makeError(child.error().code, label + " could not be started: " + child.error().message);
    // Before anything else can run the reaper: a tool call's end must not take the server with it.
    spareProcessGroup(child->pid);
    return std::unique_ptr<McpStdioConnection>(
        new McpStdioConnection(server.name, child->pid, std::move(child->pidfd), std::move(ours),
                               std::move(child->stdoutPipe), std::move(child->stderrPipe)));
}

McpStdioConnection::McpStdioConnection(std::string name, pid_t pid, UniqueFd pidfd, UniqueFd input,
                                       UniqueFd output, UniqueFd errors)
    : McpConnection(std::move(name)), m_pid(pid), m_pidfd(std::move(pidfd)), m_input(std::move(input)),
      m_output(std::move(output)), m_errors(std::move(errors)) {}

McpStdioConnection::~McpStdioConnection() {
    close();
}

McpStdioConnection::Reply McpStdioConnection::request(protocol::Request message, Deadline deadline,
                                                      const Cancellation* stop) {
    // What ended while nothing waited (an exit, a closed pipe after its last answer) ends it now.
    if (isOpen() && (m_exited || !m_output.valid() || !m_input.valid()))
        failAsGone(m_output.valid() ? "stdin" : "stdout");
    if (!isOpen())
        return {Reply::Kind::Closed, {}, closedReason()};
    const auto sent = Clock::now();
    const protocol::Id id = message.id;
    const std::string method = message.method;
    await(id);
    queue(message);
    while (true) {
        if (answered())
            return takeAnswer(method);
        if (!isOpen())
            return {Reply::Kind::Closed, {}, closedReason()};
        if (Clock::now() >= deadline)
            return giveUp(id, Reply::Kind::TimedOut,
                          m_label + " did not answer " + method + " within " + secondsBetween(sent, deadline),
                          Clock::now());
        if (waitOnce(deadline, stop) == Wait::Stopped && !answered())
            return giveUp(id, Reply::Kind::Cancelled, m_label + ": " + method + " was given up: a stop was requested",
                          Clock::now());
    }
}

void McpStdioConnection::send(const protocol::Message& message, Deadline deadline) {
    queue(message);
    // With no time to wait (an answer to the server's request, while its output is read) it goes with the
    // next write.
    if (deadline > Clock::now())
        flush(deadline);
}

void McpStdioConnection::queue(const protocol::Message& message) {
    if (!m_input.valid())
        return;
    m_outgoing += protocol::serialize(message);
    m_outgoing += '\n';
    if (m_outgoing.size() > kMaxOutgoingBytes)
        fail(m_label + " does not read its stdin: " + std::to_string(m_outgoing.size()) +
             " bytes wait to be sent; the connection was closed");
}

void McpStdioConnection::flush(Deadline deadline) {
    writeQueued();
    while (isOpen() && !m_outgoing.empty() && m_input.valid() && Clock::now() < deadline)
        waitOnce(deadline, nullptr);
}

void McpStdioConnection::pollIdle() {
    if (!isOpen())
        return;
    waitOnce(Clock::now(), nullptr);
}

McpStdioConnection::Wait McpStdioConnection::waitOnce(Deadline wake, const Cancellation* stop) {
    const auto now = Clock::now();
    const int stopFd = stop ? stop->fd() : -1;
    if (stop && stopFd < 0 && stop->stopRequested())
        return Wait::Stopped;
    if ((stop && stopFd < 0) || (!m_pidfd.valid() && !m_exited))
        wake = std::min(wake, now + kPollInterval);

    std::array<pollfd, 5> fds{};
    std::size_t count = 0;
    const auto watch = [&](int fd, short events) -> const pollfd* {
        if (fd < 0)
            return nullptr;
        fds[count] = pollfd{fd, events, 0};
        return &fds[count++];
    };
    const pollfd* outputEntry = watch(m_output.get(), POLLIN);
    const pollfd* errorsEntry = watch(m_errors.get(), POLLIN);
    const pollfd* exitEntry = watch(m_exited ? -1 : m_pidfd.get(), POLLIN);
    const pollfd* inputEntry = watch(m_outgoing.empty() ? -1 : m_input.get(), POLLOUT);
    const pollfd* stopEntry = watch(stopFd, POLLIN);
    const int ready = ::poll(fds.data(), count, pollTimeout(wake, now));
    if (ready < 0 && errno != EINTR) {
        fail(m_label + ": cannot wait for it: poll: " + std::strerror(errno));
        return Wait::Progress;
    }
    if (ready > 0) {
        if (outputEntry && outputEntry->revents != 0)
            readOutput();
        if (errorsEntry && errorsEntry->revents != 0)
            readErrors();
        if (inputEntry && inputEntry->revents != 0 && isOpen())
            writeQueued();
    }
    // An exit is taken for one once what it wrote before is read: its last answer may be there.
    const bool exitSeen =
        (exitEntry && exitEntry->revents != 0) || m_exited || (!m_pidfd.valid() && checkExited());
    if (isOpen() && exitSeen) {
        checkExited();
        readOutput();
        readErrors();
        if (isOpen() && !answered())
            fail(stoppedMessage());
    }
    if ((stopEntry && stopEntry->revents != 0) || (stop && stopFd < 0 && stop->stopRequested()))
        return Wait::Stopped;
    return Wait::Progress;
}

void McpStdioConnection::readOutput() {
    std::array<char, kReadSize> buffer;
    std::size_t total = 0;
    while (m_output.valid() && isOpen() && total < kReadPerWake) {
        const ssize_t n = ::read(m_output.get(), buffer.data(), buffer.size());
        if (n > 0) {
            total += static_cast<std::size_t>(n);
            takeBytes(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        // End of its stdout: whatever it does now, no answer can come.
        m_output.reset();
        if (!answered())
            failAsGone("stdout");
    }
}

void McpStdioConnection::readErrors() {
    std::array<char, kReadSize> buffer;
    std::size_t total = 0;
    while (m_errors.valid() && total < kReadPerWake) {
        const ssize_t n = ::read(m_errors.get(), buffer.data(), buffer.size());
        if (n > 0) {
            total += static_cast<std::size_t>(n);
            m_stderrTail.append(buffer.data(), static_cast<std::size_t>(n));
            if (m_stderrTail.size() > kMcpStderrTailBytes) {
                m_stderrTail.erase(0, m_stderrTail.size() - kMcpStderrTailBytes);
                m_stderrCut = true;
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        m_errors.reset();
    }
}

void McpStdioConnection::writeQueued() {
    while (!m_outgoing.empty() && m_input.valid()) {
        const ssize_t n = ::send(m_input.get(), m_outgoing.data(), m_outgoing.size(), MSG_NOSIGNAL);
        if (n > 0) {
            m_outgoing.erase(0, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        // EPIPE and the like: it closed its stdin or is gone; what it said before may still be read.
        m_outgoing.clear();
        m_input.reset();
        readOutput();
        if (isOpen() && !answered())
            failAsGone("stdin");
    }
}

void McpStdioConnection::takeBytes(std::string_view bytes) {
    while (!bytes.empty() && isOpen()) {
        const std::size_t newline = bytes.find('\n');
        const std::string_view piece = bytes.substr(0, newline);
        if (m_partialLine.size() + piece.size() > kMaxMcpFrameBytes) {
            std::string().swap(m_partialLine);
            fail(m_label + " sent a message longer than " + std::to_string(kMaxMcpFrameBytes) +
                 " bytes (a line of its stdout); the connection was closed");
            return;
        }
        m_partialLine.append(piece);
        if (newline == std::string_view::npos)
            return;
        bytes.remove_prefix(newline + 1);
        std::string line;
        line.swap(m_partialLine);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!line.empty())
            handleLine(line);
    }
}

void McpStdioConnection::handleLine(const std::string& line) {
    auto decoded = protocol::decodeMessage(line);
    if (auto* invalid = std::get_if<protocol::InvalidMessage>(&decoded)) {
        noteGarbage(line, invalid->error.message);
        return;
    }
    // An answer to the server's request is queued, and goes with the next write.
    takeMessage(std::move(std::get<protocol::Message>(decoded)), Clock::now());
}

void McpStdioConnection::noteGarbage(const std::string& line, const std::string& why) {
    if (++m_garbageLines <= kMaxMcpGarbageLines)
        return;
    fail(m_label + " sent " + std::to_string(m_garbageLines) +
         " lines that are not JSON-RPC messages on its stdout; the last: " + quotedLine(line) + " (" + why +
         "); the connection was closed");
}

bool McpStdioConnection::checkExited() {
    if (m_exited || m_pid < 0)
        return m_exited;
    siginfo_t info{};
    // WNOWAIT: left a zombie, so that its pid keeps naming its group until close() reaps it.
    if (::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid != m_pid)
        return false;
    m_exited = true;
    m_howItExited = info.si_code == CLD_EXITED ? "exit status " + std::to_string(info.si_status)
                                               : "killed by signal " + std::to_string(info.si_status);
    return true;
}

void McpStdioConnection::failAsGone(const char* closedEnd) {
    // A process's pipes close as it exits, a moment before it can be waited for.
    awaitExit(Clock::now() + kExitAfterPipeClosed, false);
    fail(m_exited ? stoppedMessage() : m_label + " closed its " + closedEnd + stderrTail());
}

bool McpStdioConnection::awaitExit(Deadline until, bool drainOutput) {
    while (!checkExited() && Clock::now() < until) {
        const auto now = Clock::now();
        const Deadline wake = m_pidfd.valid() ? until : std::min(until, now + kPollInterval);
        std::array<pollfd, 3> fds{pollfd{m_pidfd.get(), POLLIN, 0}, pollfd{m_errors.get(), POLLIN, 0},
                                  pollfd{drainOutput ? m_output.get() : -1, POLLIN, 0}};
        ::poll(fds.data(), fds.size(), pollTimeout(wake, now));
        readErrors();
        if (drainOutput && fds[2].revents != 0) {
            std::array<char, kReadSize> buffer;
            const ssize_t n = ::read(m_output.get(), buffer.data(), buffer.size());
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                m_output.reset();
        }
    }
    readErrors();
    return m_exited;
}

std::string McpStdioConnection::stoppedMessage() {
    checkExited();
    readErrors();
    return m_label + " stopped" + (m_exited ? " (" + m_howItExited + ")" : std::string()) + stderrTail();
}

std::string McpStdioConnection::stderrTail() const {
    std::string tail = validUtf8(m_stderrTail);
    if (m_stderrCut) {
        // From the first whole line kept.
        const std::size_t newline = tail.find('\n');
        tail = "..." + (newline == std::string::npos ? tail : tail.substr(newline));
    }
    while (!tail.empty() &&
           (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ' || tail.back() == '\t'))
        tail.pop_back();
    if (tail.empty())
        return "; it wrote nothing on stderr";
    return "; the end of its stderr:\n" + tail;
}

void McpStdioConnection::fail(std::string reason) {
    if (!isOpen())
        return;
    markClosed(std::move(reason));
    endProcess(false);
}

void McpStdioConnection::endInput() {
    m_outgoing.clear();
    m_input.reset();
}

void McpStdioConnection::close() {
    markClosed(m_label + " was closed");
    endProcess(true);
}

void McpStdioConnection::endProcess(bool politely) {
    if (m_pid < 0)
        return;
    endInput();
    if (politely) {
        // Its stdout is still read meanwhile (and dropped): a server blocked on a full pipe cannot exit.
        if (!awaitExit(Clock::now() + kMcpExitGrace, true)) {
            ::kill(-m_pid, SIGTERM);
            awaitExit(Clock::now() + kMcpExitGrace, true);
        }
    }
    // Its group too: what it started and left running, or that outlived it.
    killAndReapGroup(m_pid);
    stopSparingProcessGroup(m_pid);
    m_pid = -1;
    m_pidfd.reset();
    m_output.reset();
    m_errors.reset();
}

} // namespace warren::agent
