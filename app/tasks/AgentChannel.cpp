#include "app/tasks/AgentChannel.h"

#include <QSocketNotifier>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace warren::control {

namespace {

constexpr std::size_t kStderrTailBytes = 16 * 1024;
constexpr std::size_t kReadChunk = 256 * 1024;
constexpr std::size_t kReadPerWakeup = 8 * 1024 * 1024; // then yield to the event loop

// Both ends close-on-exec; ours non-blocking. The child's end is handed to the sandbox's stdio.
Status makePipe(UniqueFd& ours, UniqueFd& theirs, bool oursReads) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System, std::string("pipe2: ") + std::strerror(errno));
    ours = UniqueFd(oursReads ? fds[0] : fds[1]);
    theirs = UniqueFd(oursReads ? fds[1] : fds[0]);
    fcntl(ours.get(), F_SETFL, fcntl(ours.get(), F_GETFL) | O_NONBLOCK);
    return Ok{};
}

void setBlocking(const UniqueFd& fd) {
    if (fd.valid())
        fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
}

// Disabled first: the notifier may be the sender of the call we are in, so it is deleted later.
void retire(QSocketNotifier*& notifier) {
    if (!notifier)
        return;
    notifier->setEnabled(false);
    notifier->deleteLater();
    notifier = nullptr;
}

} // namespace

Result<std::unique_ptr<AgentChannel>> AgentChannel::open(Transport transport) {
    std::unique_ptr<AgentChannel> channel(new AgentChannel(transport));
    if (auto made = makePipe(channel->m_stdin, channel->m_childStdin, false); !made)
        return made.error();
    if (transport == Transport::Socket) { // what is sent waits for the connection: the pipe's end is closed
        channel->m_stdin.reset();
        channel->m_awaitingConnection = true;
    }
    else if (auto made = makePipe(channel->m_stdout, channel->m_childStdout, true); !made)
        return made.error();
    if (auto made = makePipe(channel->m_stderr, channel->m_childStderr, true); !made)
        return made.error();
    return channel;
}

AgentChannel::~AgentChannel() = default;

sandbox::LaunchOptions AgentChannel::childStdio() const {
    const int stdoutFd = m_transport == Transport::Socket ? m_childStderr.get() : m_childStdout.get();
    return {m_childStdin.get(), stdoutFd, m_childStderr.get()};
}

void AgentChannel::watch() {
    m_childStdin.reset();
    m_childStdout.reset();
    m_childStderr.reset();
    m_stderrNotifier = new QSocketNotifier(m_stderr.get(), QSocketNotifier::Read, this);
    connect(m_stderrNotifier, &QSocketNotifier::activated, this, &AgentChannel::onStderrReadable);
    if (m_transport == Transport::Stdio)
        watchProtocol();
}

void AgentChannel::watchProtocol() {
    m_stdoutNotifier = new QSocketNotifier(m_stdout.get(), QSocketNotifier::Read, this);
    m_stdoutNotifier->setEnabled(m_reading);
    connect(m_stdoutNotifier, &QSocketNotifier::activated, this, &AgentChannel::onStdoutReadable);
    m_stdinNotifier = new QSocketNotifier(m_stdin.get(), QSocketNotifier::Write, this);
    m_stdinNotifier->setEnabled(false);
    connect(m_stdinNotifier, &QSocketNotifier::activated, this, &AgentChannel::flushStdin);
}

void AgentChannel::adopt(UniqueFd connection, const std::string& afterHello) {
    if (!m_awaitingConnection || !connection.valid())
        return;
    m_awaitingConnection = false;
    m_stdin = UniqueFd(fcntl(connection.get(), F_DUPFD_CLOEXEC, 0));
    m_stdout = std::move(connection);
    for (auto& line : m_lines.feed(afterHello))
        emit lineRead(line);
    watchProtocol();
    flushStdin();
}

void AgentChannel::send(const protocol::Message& message) {
    if (!m_stdin.valid() && !m_awaitingConnection)
        return; // the agent is gone
    m_stdinBuffer += protocol::serialize(message);
    m_stdinBuffer += '\n';
    flushStdin();
}

void AgentChannel::flushStdin() {
    while (!m_stdinBuffer.empty() && m_stdin.valid()) {
        const ssize_t n = ::write(m_stdin.get(), m_stdinBuffer.data(), m_stdinBuffer.size());
        if (n > 0) {
            m_stdinBuffer.erase(0, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            if (m_stdinNotifier)
                m_stdinNotifier->setEnabled(true);
            return;
        }
        // EPIPE: the agent is gone; its exit is handled when the sandbox ends.
        m_stdinBuffer.clear();
        if (m_stdinNotifier)
            m_stdinNotifier->setEnabled(false);
        m_stdin.reset();
        return;
    }
    if (m_stdinNotifier)
        m_stdinNotifier->setEnabled(false);
}

void AgentChannel::onStdoutReadable() {
    char buffer[kReadChunk];
    std::size_t total = 0;
    while (m_stdout.valid() && m_reading && total < kReadPerWakeup) {
        const ssize_t n = ::read(m_stdout.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return; // wait for more
        if (n <= 0) {
            if (m_stdoutNotifier)
                m_stdoutNotifier->setEnabled(false);
            m_stdout.reset();
            for (auto& line : m_lines.finish())
                emit lineRead(line);
            if (m_transport == Transport::Socket && !m_awaitingConnection) {
                retire(m_stdoutNotifier);
                retire(m_stdinNotifier);
                m_stdin.reset();
                m_stdinBuffer.clear();
                emit connectionLost();
            }
            return;
        }
        total += static_cast<std::size_t>(n);
        for (auto& line : m_lines.feed({buffer, static_cast<std::size_t>(n)}))
            emit lineRead(line);
    }
}

void AgentChannel::onStderrReadable() {
    char buffer[16 * 1024];
    while (m_stderr.valid()) {
        const ssize_t n = ::read(m_stderr.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            if (m_stderrNotifier)
                m_stderrNotifier->setEnabled(false);
            m_stderr.reset();
            return;
        }
        m_stderrTail.append(buffer, static_cast<std::size_t>(n));
        if (m_stderrTail.size() > 2 * kStderrTailBytes)
            m_stderrTail.erase(0, m_stderrTail.size() - kStderrTailBytes);
    }
}

void AgentChannel::setReading(bool reading) {
    m_reading = reading;
    if (m_stdoutNotifier && m_stdout.valid())
        m_stdoutNotifier->setEnabled(reading);
}

void AgentChannel::drain() {
    setReading(true);
    setBlocking(m_stdout);
    setBlocking(m_stderr);
    while (m_stdout.valid())
        onStdoutReadable();
    while (m_stderr.valid())
        onStderrReadable();
}

void AgentChannel::close() {
    m_awaitingConnection = false;
    retire(m_stdoutNotifier);
    retire(m_stderrNotifier);
    retire(m_stdinNotifier);
    for (UniqueFd* fd : {&m_stdin, &m_stdout, &m_stderr, &m_childStdin, &m_childStdout, &m_childStderr})
        fd->reset();
    m_stdinBuffer.clear();
}

std::string AgentChannel::stderrTail(std::size_t bytes) const {
    std::string text =
        m_stderrTail.size() <= bytes ? m_stderrTail : "…" + m_stderrTail.substr(m_stderrTail.size() - bytes);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

} // namespace warren::control
