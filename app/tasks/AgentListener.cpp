#include "app/tasks/AgentListener.h"

#include "agent_core/net/ControlConnection.h"
#include "agent_core/protocol/AgentHello.h"
#include "agent_core/protocol/JsonRpc.h"

#include <QSocketNotifier>
#include <QTimer>
#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

namespace warren::control {

namespace {

std::int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Disabled first: the notifier may be the sender of the call we are in, so it is deleted later.
void retire(QSocketNotifier* notifier) {
    notifier->setEnabled(false);
    notifier->deleteLater();
}

} // namespace

Result<std::unique_ptr<AgentListener>> AgentListener::listenUnix(const std::string& path, const TaskTokens& tokens,
                                                                  std::chrono::milliseconds helloTimeout) {
    sockaddr_un address{};
    if (path.empty() || path.size() >= sizeof address.sun_path)
        return makeError(ErrorCode::InvalidArgument, "the agent's socket path " + path +
                                                         " is too long for a Unix socket; pass a shorter --data-dir");
    UniqueFd socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!socket.valid())
        return makeError(ErrorCode::System, std::string("socket: ") + std::strerror(errno));
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    ::unlink(path.c_str());
    const mode_t mask = ::umask(0177); // the socket file is made 0600 from the start
    const int bound = ::bind(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
    const int bindError = errno;
    ::umask(mask);
    if (bound != 0 || ::listen(socket.get(), static_cast<int>(kMaxPending)) != 0)
        return makeError(ErrorCode::System, "cannot listen on " + path + ": " +
                                                std::strerror(bound != 0 ? bindError : errno));
    return std::unique_ptr<AgentListener>(new AgentListener(std::move(socket), path, tokens, helloTimeout));
}

Result<std::unique_ptr<AgentListener>> AgentListener::listenTcp(const std::string& hostPort, const TaskTokens& tokens,
                                                                 std::chrono::milliseconds helloTimeout) {
    auto address = agent::parseTcpAddress(hostPort, true);
    if (!address)
        return makeError(ErrorCode::InvalidArgument, "the agents' address " + address.error().message);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(address->port);
    if (const int status = ::getaddrinfo(address->host.c_str(), port.c_str(), &hints, &found); status != 0)
        return makeError(ErrorCode::InvalidArgument,
                         "cannot resolve " + address->host + " to listen on: " + ::gai_strerror(status));
    std::string last = "no address";
    for (addrinfo* entry = found; entry; entry = entry->ai_next) {
        UniqueFd socket(::socket(entry->ai_family, entry->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                                 entry->ai_protocol));
        const int reuse = 1; // a restarted warrend binds again while its old connections linger in TIME_WAIT
        if (socket.valid() && ::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse) == 0 &&
            ::bind(socket.get(), entry->ai_addr, entry->ai_addrlen) == 0 &&
            ::listen(socket.get(), static_cast<int>(kMaxPending)) == 0) {
            ::freeaddrinfo(found);
            return std::unique_ptr<AgentListener>(new AgentListener(std::move(socket), {}, tokens, helloTimeout));
        }
        last = std::strerror(errno);
    }
    ::freeaddrinfo(found);
    return makeError(ErrorCode::System, "cannot listen on " + hostPort + ": " + last);
}

AgentListener::AgentListener(UniqueFd socket, std::string path, const TaskTokens& tokens,
                             std::chrono::milliseconds helloTimeout)
    : m_socket(std::move(socket)), m_path(std::move(path)), m_tokens(tokens), m_helloTimeout(helloTimeout) {
    m_acceptNotifier = new QSocketNotifier(m_socket.get(), QSocketNotifier::Read, this);
    connect(m_acceptNotifier, &QSocketNotifier::activated, this, &AgentListener::onAcceptable);
}

AgentListener::~AgentListener() {
    if (!m_path.empty())
        ::unlink(m_path.c_str());
}

void AgentListener::expect(const std::string& taskId, Accept accept, std::vector<PodToken> podTokens) {
    m_expected[taskId] = {std::move(accept), std::move(podTokens)};
}

std::optional<std::string> AgentListener::podTokenTask(const std::string& token) const {
    const std::string digest = podTokenDigest(token);
    const std::int64_t now = nowMs();
    for (const auto& [taskId, expected] : m_expected)
        for (const PodToken& known : expected.podTokens)
            if (known.sha256 == digest && now < known.expiresAtMs)
                return taskId;
    return std::nullopt;
}

void AgentListener::serveModel(const std::string& taskId, Accept accept) {
    m_models[taskId] = std::move(accept);
}

void AgentListener::forget(const std::string& taskId) {
    m_expected.erase(taskId);
    m_models.erase(taskId);
}

std::uint16_t AgentListener::port() const {
    sockaddr_storage bound{};
    socklen_t size = sizeof bound;
    if (::getsockname(m_socket.get(), reinterpret_cast<sockaddr*>(&bound), &size) != 0)
        return 0;
    if (bound.ss_family == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in&>(bound).sin_port);
    if (bound.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6&>(bound).sin6_port);
    return 0;
}

void AgentListener::onAcceptable() {
    for (;;) {
        UniqueFd fd(::accept4(m_socket.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!fd.valid())
            return; // EAGAIN: none left; anything else ended that one connection
        if (m_pending.size() >= kMaxPending) {
            emit refused(QStringLiteral("a connection was closed unread: %1 others are still to say hello")
                             .arg(kMaxPending));
            continue;
        }
        auto pending = m_pending.insert(m_pending.end(), Pending{std::move(fd), {}, nullptr, nullptr});
        pending->notifier = new QSocketNotifier(pending->fd.get(), QSocketNotifier::Read, this);
        connect(pending->notifier, &QSocketNotifier::activated, this, [this, pending] { onReadable(pending); });
        pending->deadline = new QTimer(this);
        pending->deadline->setSingleShot(true);
        connect(pending->deadline, &QTimer::timeout, this, [this, pending] {
            refuse(pending, "no hello within " + std::to_string(m_helloTimeout.count()) + " ms");
        });
        pending->deadline->start(m_helloTimeout);
    }
}

void AgentListener::onReadable(std::list<Pending>::iterator pending) {
    char buffer[1024];
    for (;;) {
        const ssize_t n = ::recv(pending->fd.get(), buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0)
            return refuse(pending, "the connection closed before its hello");
        const std::size_t before = pending->received.size();
        pending->received.append(buffer, static_cast<std::size_t>(n));
        if (const std::size_t end = pending->received.find('\n', before); end != std::string::npos)
            return onHello(pending, end);
        if (pending->received.size() > protocol::kMaxHelloBytes)
            return refuse(pending, "the hello is over " + std::to_string(protocol::kMaxHelloBytes) + " bytes");
    }
}

void AgentListener::onHello(std::list<Pending>::iterator pending, std::size_t lineEnd) {
    if (lineEnd > protocol::kMaxHelloBytes)
        return refuse(pending, "the hello is over " + std::to_string(protocol::kMaxHelloBytes) + " bytes");
    auto hello = protocol::parseHello(std::string_view(pending->received).substr(0, lineEnd));
    if (!hello)
        return refuse(pending, hello.error().message);
    const bool model = hello->stream == protocol::HelloStream::Model;
    auto claims = m_tokens.verify(hello->token, model ? scope::kLlm : scope::kChannel, nowMs());
    // Not one of this control plane's: the agent of a pod that a replica which died left running, whose task
    // this one has taken over, is known by its token's digest (PodTokens.h). Only a protocol connection.
    const auto rejoining = claims || model ? std::nullopt : podTokenTask(hello->token);
    if (!claims && !rejoining)
        return refuse(pending, "the task token was refused: " + claims.error().message);
    const std::string taskId = claims ? claims->taskId : *rejoining;
    Accept accept;
    if (model) {
        const auto served = m_models.find(taskId);
        if (served == m_models.end())
            return refuse(pending, "task " + taskId + " takes no model calls here (it is not running)");
        accept = served->second;
    } else {
        auto expected = m_expected.find(taskId);
        if (expected == m_expected.end())
            return refuse(pending, "no agent of task " + taskId + " is expected (its agent is connected)");
        accept = std::move(expected->second.accept);
        m_expected.erase(expected);
    }
    UniqueFd fd = std::move(pending->fd);
    std::string afterHello = pending->received.substr(lineEnd + 1);
    drop(pending);
    accept(std::move(fd), std::move(afterHello));
}

void AgentListener::refuse(std::list<Pending>::iterator pending, const std::string& why) {
    const protocol::ErrorResponse answer{std::nullopt, {protocol::rpc_error::kInvalidRequest, why, std::nullopt}};
    const std::string line = protocol::serialize(answer) + "\n";
    [[maybe_unused]] const ssize_t sent = ::send(pending->fd.get(), line.data(), line.size(), MSG_NOSIGNAL);
    drop(pending);
    emit refused(QString::fromStdString("a connection to the agents' listener was refused: " + why));
}

void AgentListener::drop(std::list<Pending>::iterator pending) {
    retire(pending->notifier);
    pending->deadline->stop();
    pending->deadline->deleteLater();
    m_pending.erase(pending);
}

} // namespace warren::control
