#include "agent_core/net/EgressForwarder.h"

#include "common/UniqueFd.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <optional>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <system_error>
#include <thread>
#include <vector>

namespace warren::agent {

namespace {

using Clock = std::chrono::steady_clock;

// Per direction and connection: enough for the proxy's throughput, small enough that 256 stalled
// connections hold at most 32 MiB.
constexpr std::size_t kBufferSize = 64 * 1024;
// A tool that opens more connections than this at once is misbehaving; the rest are closed on accept.
constexpr std::size_t kMaxConnections = 256;
// A Unix socket whose backlog is full refuses a non-blocking connect with EAGAIN (there is no EINPROGRESS
// for AF_UNIX to wait on): try again shortly, for a while, before giving the client up.
constexpr auto kConnectRetryInterval = std::chrono::milliseconds(20);
constexpr auto kConnectRetryBudget = std::chrono::seconds(5);
// Out of file descriptors: the listening socket stays readable, so stop polling it for a moment.
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

std::string systemError(const std::string& what, int error) {
    return what + ": " + std::strerror(error);
}

// Bytes read from one side and not yet written to the other.
struct Pipe {
    std::vector<char> data = std::vector<char>(kBufferSize);
    std::size_t begin = 0;
    std::size_t end = 0;
    bool sourceEnded = false; // the source sent EOF
    bool shutDown = false;    // ... and everything is passed on and the destination half-closed
    // The destination failed (EPIPE, reset): what the source still sends is read and dropped, so that the
    // other direction can finish, e.g. a proxy's "403" to an upload it did not read; closing at once would
    // reset the client and could lose that answer.
    bool discarding = false;

    std::size_t buffered() const { return end - begin; }
    bool wantsInput() const { return !sourceEnded && buffered() < data.size(); }
    bool hasOutput() const { return buffered() > 0; }
};

enum class Upstream { WaitingToRetry, Connecting, Open };

struct Connection {
    UniqueFd client;
    UniqueFd upstream;
    Upstream state = Upstream::WaitingToRetry;
    Clock::time_point retryAt;
    Clock::time_point giveUpAt;
    Pipe toUpstream;
    Pipe toClient;
};

// False on an error that ends the connection (a reset); EOF only marks the pipe. resetIsEnd: on a Unix
// socket, ECONNRESET only says that the peer closed without reading everything (a proxy refusing an
// upload); what it sent before is delivered and passed on as a clean end.
bool fill(int fd, Pipe& pipe, bool resetIsEnd) {
    if (pipe.end == pipe.data.size()) {
        std::memmove(pipe.data.data(), pipe.data.data() + pipe.begin, pipe.buffered());
        pipe.end -= pipe.begin;
        pipe.begin = 0;
    }
    const ssize_t got = ::recv(fd, pipe.data.data() + pipe.end, pipe.data.size() - pipe.end, 0);
    if (got > 0)
        pipe.end = pipe.discarding ? 0 : pipe.end + static_cast<std::size_t>(got);
    else if (got == 0 || (resetIsEnd && errno == ECONNRESET))
        pipe.sourceEnded = true;
    else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return false;
    return true;
}

// MSG_NOSIGNAL: a peer that went away is an EPIPE for this connection, never a SIGPIPE for the agent.
bool drain(Pipe& pipe, int fd) {
    while (pipe.hasOutput()) {
        const ssize_t sent = ::send(fd, pipe.data.data() + pipe.begin, pipe.buffered(), MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK;
        pipe.begin += static_cast<std::size_t>(sent);
    }
    pipe.begin = pipe.end = 0;
    return true;
}

void stopDelivering(Pipe& pipe) {
    pipe.discarding = true;
    pipe.begin = pipe.end = 0;
}

// Once the source has ended and its bytes are written, the destination learns of the end.
void passOnEnd(Pipe& pipe, int fd) {
    if (pipe.sourceEnded && !pipe.hasOutput() && !pipe.shutDown) {
        if (!pipe.discarding)
            ::shutdown(fd, SHUT_WR);
        pipe.shutDown = true;
    }
}

bool finished(const Pipe& pipe) {
    return pipe.shutDown || pipe.discarding;
}

short eventsFor(const Pipe& in, const Pipe& out) {
    return static_cast<short>((in.wantsInput() ? POLLIN : 0) | (out.hasOutput() ? POLLOUT : 0));
}

} // namespace

struct EgressForwarder::State {
    ForwardTarget target;
    UniqueFd listener;
    UniqueFd wake;
    std::uint16_t port = 0;
    std::vector<std::unique_ptr<Connection>> connections;
    Clock::time_point acceptPausedUntil;
    std::thread thread;

    void run();
    bool connectUpstream(Connection& connection, Clock::time_point now);
    bool step(Connection& connection, short clientEvents, short upstreamEvents, Clock::time_point now);
    void acceptAll(Clock::time_point now);
    int pollTimeout(Clock::time_point now) const;
};

// False when the client must be closed: the target is missing, refuses, or stayed full for too long.
bool EgressForwarder::State::connectUpstream(Connection& connection, Clock::time_point now) {
    const int family = target.address.ss_family;
    UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid())
        return false;
    if (family != AF_UNIX) { // a request waits for no acknowledgement of the hello before it
        const int on = 1;
        ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    int result;
    do
        result = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&target.address), target.length);
    while (result < 0 && errno == EINTR);
    if (result == 0) {
        connection.state = Upstream::Open;
    } else if (errno == EINPROGRESS) {
        connection.state = Upstream::Connecting;
    } else if (errno == EAGAIN && now < connection.giveUpAt) {
        connection.state = Upstream::WaitingToRetry;
        connection.retryAt = now + kConnectRetryInterval;
        return true; // a fresh socket next time: a refused one is not reused
    } else {
        return false;
    }
    connection.upstream = std::move(fd);
    return true;
}

// One poll round for one connection. False when it is over: both directions finished, or the client reset
// it (passed on as the closing of both sides, not as a clean end).
bool EgressForwarder::State::step(Connection& connection, short clientEvents, short upstreamEvents,
                                  Clock::time_point now) {
    if (connection.state == Upstream::WaitingToRetry && now >= connection.retryAt &&
        !connectUpstream(connection, now))
        return false;
    if (connection.state == Upstream::Connecting && upstreamEvents) {
        int error = 0;
        socklen_t length = sizeof error;
        if (::getsockopt(connection.upstream.get(), SOL_SOCKET, SO_ERROR, &error, &length) < 0 || error != 0)
            return false;
        connection.state = Upstream::Open;
        upstreamEvents = POLLOUT;
    }
    const int client = connection.client.get();
    const int upstream = connection.upstream.get();
    const bool open = connection.state == Upstream::Open;
    // Hang-ups and errors are found out by reading and writing: data queued before them is still delivered.
    constexpr short kReadable = POLLIN | POLLHUP | POLLERR;
    constexpr short kWritable = POLLOUT | POLLHUP | POLLERR;
    auto& toUpstream = connection.toUpstream;
    auto& toClient = connection.toClient;

    // The client is read even while the upstream connects: its request waits in the buffer.
    bool readFromClient = false;
    if ((clientEvents & kReadable) && toUpstream.wantsInput()) {
        if (!fill(client, toUpstream, false))
            return false;
        readFromClient = true;
    }
    bool readFromUpstream = false;
    if (open && (upstreamEvents & kReadable) && toClient.wantsInput()) {
        if (!fill(upstream, toClient, true))
            return false;
        readFromUpstream = true;
    }
    // Written as soon as read: most of the time the other side has room, which saves a poll round.
    if (open && (readFromClient || (upstreamEvents & kWritable)) && !drain(toUpstream, upstream))
        stopDelivering(toUpstream);
    if ((readFromUpstream || (clientEvents & kWritable)) && !drain(toClient, client))
        stopDelivering(toClient);
    if (open)
        passOnEnd(toUpstream, upstream);
    passOnEnd(toClient, client);
    return !(finished(toUpstream) && finished(toClient));
}

void EgressForwarder::State::acceptAll(Clock::time_point now) {
    for (;;) {
        UniqueFd client(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!client.valid()) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                acceptPausedUntil = now + kAcceptPause;
            return;
        }
        if (connections.size() >= kMaxConnections)
            continue; // closed at once: the client sees its connection end rather than hang
        // Requests and TLS handshakes are small writes; Nagle would add a round trip to each.
        const int on = 1;
        ::setsockopt(client.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        auto connection = std::make_unique<Connection>();
        connection->client = std::move(client);
        // The hello goes first, as if the client had sent it: it waits in the buffer while the upstream
        // connects.
        std::copy(target.preamble.begin(), target.preamble.end(), connection->toUpstream.data.begin());
        connection->toUpstream.end = target.preamble.size();
        connection->giveUpAt = now + kConnectRetryBudget;
        if (connectUpstream(*connection, now))
            connections.push_back(std::move(connection));
    }
}

int EgressForwarder::State::pollTimeout(Clock::time_point now) const {
    std::optional<Clock::time_point> next;
    if (acceptPausedUntil > now)
        next = acceptPausedUntil;
    for (const auto& connection : connections)
        if (connection->state == Upstream::WaitingToRetry && (!next || connection->retryAt < *next))
            next = connection->retryAt;
    if (!next)
        return -1;
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
    return static_cast<int>(std::clamp<decltype(wait)>(wait, 0, 1000));
}

void EgressForwarder::State::run() {
    std::vector<pollfd> fds;
    for (;;) {
        const auto before = Clock::now();
        fds.clear();
        fds.push_back({wake.get(), POLLIN, 0});
        fds.push_back({before >= acceptPausedUntil ? listener.get() : -1, POLLIN, 0});
        for (const auto& connection : connections) {
            // A descriptor with nothing wanted is left out (-1): poll would report its hang-up every round.
            const short clientWants = eventsFor(connection->toUpstream, connection->toClient);
            short upstreamWants = 0;
            if (connection->state == Upstream::Connecting)
                upstreamWants = POLLOUT;
            else if (connection->state == Upstream::Open)
                upstreamWants = eventsFor(connection->toClient, connection->toUpstream);
            fds.push_back({clientWants ? connection->client.get() : -1, clientWants, 0});
            fds.push_back({upstreamWants ? connection->upstream.get() : -1, upstreamWants, 0});
        }
        if (::poll(fds.data(), fds.size(), pollTimeout(before)) < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ENOMEM)
                continue;
            return; // EFAULT/EINVAL: a bug; the connections close with the forwarder
        }
        if (fds[0].revents)
            return;
        const auto now = Clock::now();
        // Connections accepted below were not polled: only the first polled ones are stepped.
        const std::size_t polled = (fds.size() - 2) / 2;
        for (std::size_t i = 0; i < polled; ++i) {
            if (!step(*connections[i], fds[2 + 2 * i].revents, fds[3 + 2 * i].revents, now))
                connections[i].reset();
        }
        std::erase(connections, nullptr);
        if (fds[1].revents)
            acceptAll(now);
    }
}

Result<ForwardTarget> unixTarget(const std::string& socketPath) {
    ForwardTarget target;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socketPath.empty() || socketPath.size() >= sizeof address.sun_path)
        return makeError(ErrorCode::InvalidArgument, "the proxy's socket path \"" + socketPath +
                                                         "\" is empty or longer than " +
                                                         std::to_string(sizeof address.sun_path - 1) +
                                                         " bytes; mount it at a shorter path");
    std::memcpy(address.sun_path, socketPath.data(), socketPath.size());
    std::memcpy(&target.address, &address, sizeof address);
    target.length = sizeof address;
    return target;
}

Result<std::unique_ptr<EgressForwarder>> EgressForwarder::start(const std::string& socketPath,
                                                                std::uint16_t port) {
    auto target = unixTarget(socketPath);
    if (!target)
        return target.error();
    return start(*target, port);
}

Result<std::unique_ptr<EgressForwarder>> EgressForwarder::start(const ForwardTarget& target,
                                                                std::uint16_t port) {
    if (target.preamble.size() > kBufferSize)
        return makeError(ErrorCode::InvalidArgument, "the forwarder's preamble is over its buffer");
    auto state = std::make_unique<State>();
    state->target = target;

    state->listener = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!state->listener.valid())
        return makeError(ErrorCode::System, systemError("cannot create a TCP socket", errno));
    // A forwarder started again at once must not wait for the last one's connections in TIME_WAIT.
    const int on = 1;
    ::setsockopt(state->listener.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK); // only the sandbox's own tools may use it
    if (::bind(state->listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) < 0)
        return makeError(ErrorCode::System,
                         systemError("cannot listen on 127.0.0.1:" + std::to_string(port), errno));
    if (::listen(state->listener.get(), SOMAXCONN) < 0)
        return makeError(ErrorCode::System,
                         systemError("cannot listen on 127.0.0.1:" + std::to_string(port), errno));
    socklen_t length = sizeof address;
    if (::getsockname(state->listener.get(), reinterpret_cast<sockaddr*>(&address), &length) < 0)
        return makeError(ErrorCode::System, systemError("cannot read the forwarder's port", errno));
    state->port = ntohs(address.sin_port);

    state->wake = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!state->wake.valid())
        return makeError(ErrorCode::System,
                         systemError("cannot create the forwarder's wake-up eventfd", errno));

    // Signals (the agent's SIGTERM, SIGINT) belong to the main thread, whose handlers and waits expect them.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    try {
        State* running = state.get();
        state->thread = std::thread([running] { running->run(); });
    } catch (const std::system_error& error) {
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        return makeError(ErrorCode::System,
                         std::string("cannot start the forwarder's thread: ") + error.what());
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return std::unique_ptr<EgressForwarder>(new EgressForwarder(std::move(state)));
}

EgressForwarder::EgressForwarder(std::unique_ptr<State> state) : m_state(std::move(state)) {}

EgressForwarder::~EgressForwarder() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(m_state->wake.get(), &one, sizeof one);
    m_state->thread.join();
    // m_state's descriptors (listener, wake, every connection) close with it.
}

std::uint16_t EgressForwarder::port() const {
    return m_state->port;
}

} // namespace warren::agent
