#include "agent_core/net/ControlConnection.h"

#include "agent_core/protocol/AgentHello.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <memory>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <thread>

namespace warren::agent {

namespace {

constexpr std::size_t kMaxTokenBytes = 4096;
constexpr std::chrono::milliseconds kFirstPause{50};
constexpr std::chrono::milliseconds kLongestPause{1000};
constexpr std::chrono::seconds kConnectTimeout{5}; // one TCP connect

Error invalid(std::string_view text, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "--connect \"" + std::string(text) + "\": " + why +
                                                     "; expected unix:PATH or tcp:HOST:PORT");
}

using Addresses = std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)>;

// A TCP address's host and port, resolved; an error whose code is NotFound may resolve later.
Result<Addresses> lookUp(const ControlAddress& address) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(address.port);
    if (const int status = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); status != 0)
        return makeError(status == EAI_AGAIN || status == EAI_NONAME ? ErrorCode::NotFound
                                                                     : ErrorCode::System,
                         std::string("cannot resolve ") + address.host + ": " + ::gai_strerror(status));
    return Addresses(found, &::freeaddrinfo);
}

// One attempt. An error whose code is NotFound is worth another try (nobody listens yet).
Result<UniqueFd> connectOnce(const ControlAddress& address) {
    if (address.kind == ControlAddress::Kind::Unix) {
        UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!fd.valid())
            return makeError(ErrorCode::System, std::string("socket: ") + std::strerror(errno));
        sockaddr_un where{};
        where.sun_family = AF_UNIX;
        std::memcpy(where.sun_path, address.path.c_str(), address.path.size() + 1);
        if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0)
            return fd;
        const int error = errno;
        return makeError(error == ENOENT || error == ECONNREFUSED ? ErrorCode::NotFound : ErrorCode::System,
                         std::strerror(error));
    }
    auto found = lookUp(address);
    if (!found)
        return found.error();
    std::string last = "no address";
    for (addrinfo* entry = found->get(); entry; entry = entry->ai_next) {
        UniqueFd fd(::socket(entry->ai_family, entry->ai_socktype | SOCK_CLOEXEC, entry->ai_protocol));
        // A peer that is gone without a trace (a replica's pod address, its packets dropped) is given up on
        // at kConnectTimeout (SO_SNDTIMEO bounds connect), not at the kernel's two minutes; sends block as
        // before.
        const timeval bounded{static_cast<time_t>(kConnectTimeout.count()), 0}, unbounded{0, 0};
        if (fd.valid() && ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &bounded, sizeof bounded) == 0 &&
            ::connect(fd.get(), entry->ai_addr, entry->ai_addrlen) == 0 &&
            ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &unbounded, sizeof unbounded) == 0)
            return fd;
        last = errno == EINPROGRESS ? "no answer within " + std::to_string(kConnectTimeout.count()) + " s"
                                    : std::strerror(errno);
    }
    return makeError(ErrorCode::NotFound, last);
}

Status sendAll(int fd, const std::string& bytes) {
    for (std::size_t sent = 0; sent < bytes.size();) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return makeError(ErrorCode::System, std::string("sending the hello: ") + std::strerror(errno));
        sent += static_cast<std::size_t>(n);
    }
    return Ok{};
}

// HOST:PORT into address (kind Tcp); false with why set when it is not one.
bool parseHostPort(std::string_view text, bool anyPort, ControlAddress& address, std::string& why) {
    address.kind = ControlAddress::Kind::Tcp;
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
        why = "a TCP address is HOST:PORT";
        return false;
    }
    std::string_view host = text.substr(0, colon);
    if (host.front() == '[') {
        if (host.size() < 3 || host.back() != ']') {
            why = "an IPv6 address is written [ADDRESS]";
            return false;
        }
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string_view::npos) {
        why = "an IPv6 address is written [ADDRESS]";
        return false;
    }
    if (std::any_of(host.begin(), host.end(),
                    [](char c) { return c <= ' ' || c == '/' || c == '@' || c == '?' || c == '#'; })) {
        why = "the host holds a character no host name has";
        return false;
    }
    const std::string_view port = text.substr(colon + 1);
    unsigned value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || (value == 0 && !anyPort) ||
        value > 65535) {
        why = anyPort ? "the port is a number from 0 (any free port) to 65535" : "the port is a number from 1 to 65535";
        return false;
    }
    address.host = std::string(host);
    address.port = static_cast<std::uint16_t>(value);
    return true;
}

} // namespace

Result<ControlAddress> parseControlAddress(std::string_view text) {
    ControlAddress address;
    if (text.starts_with("unix:")) {
        address.path = std::string(text.substr(5));
        if (address.path.empty() || address.path.front() != '/')
            return invalid(text, "a socket's path is absolute");
        if (address.path.size() >= sizeof(sockaddr_un{}.sun_path))
            return invalid(text, "the path is too long for a Unix socket");
        if (address.path.find('\0') != std::string::npos)
            return invalid(text, "the path holds a NUL byte");
        return address;
    }
    if (!text.starts_with("tcp:"))
        return invalid(text, "unknown kind of address");
    std::string why;
    if (!parseHostPort(text.substr(4), false, address, why))
        return invalid(text, why);
    return address;
}

Result<ControlAddress> parseTcpAddress(std::string_view hostPort, bool anyPort) {
    ControlAddress address;
    std::string why;
    if (!parseHostPort(hostPort, anyPort, address, why))
        return makeError(ErrorCode::InvalidArgument, "\"" + std::string(hostPort) + "\": " + why +
                                                         "; expected HOST:PORT");
    return address;
}

std::string describe(const ControlAddress& address) {
    if (address.kind == ControlAddress::Kind::Unix)
        return "unix:" + address.path;
    const bool v6 = address.host.find(':') != std::string::npos;
    return "tcp:" + (v6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
}

Result<std::string> readTokenFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return makeError(ErrorCode::NotFound, "cannot read the task token " + path + ": " + std::strerror(errno));
    std::string token(kMaxTokenBytes + 2, '\0');
    file.read(token.data(), static_cast<std::streamsize>(token.size()));
    token.resize(static_cast<std::size_t>(file.gcount()));
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r'))
        token.pop_back();
    if (token.empty())
        return makeError(ErrorCode::InvalidArgument, "the task token " + path + " is empty");
    if (token.size() > kMaxTokenBytes)
        return makeError(ErrorCode::InvalidArgument, "the task token " + path + " is over 4 KiB: not a token");
    if (std::any_of(token.begin(), token.end(), [](char c) { return c <= ' ' || c > '~'; }))
        return makeError(ErrorCode::InvalidArgument,
                         "the task token " + path + " is not one line of printable characters");
    return token;
}

Result<UniqueFd> connectToControlPlane(const ControlAddress& address, const std::string& token,
                                       std::chrono::milliseconds patience) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    auto pause = kFirstPause;
    for (;;) {
        auto connected = connectOnce(address);
        if (connected) {
            if (auto sent = sendAll(connected->get(), protocol::helloLine(token)); !sent)
                return sent.error();
            return connected;
        }
        if (connected.error().code != ErrorCode::NotFound || std::chrono::steady_clock::now() + pause > deadline)
            return makeError(ErrorCode::Unavailable, "cannot reach the control plane at " + describe(address) +
                                                         ": " + connected.error().message);
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, kLongestPause);
    }
}

Result<ForwardTarget> modelStreamTarget(const ControlAddress& address, const std::string& token) {
    if (address.kind != ControlAddress::Kind::Tcp)
        return makeError(ErrorCode::InvalidArgument,
                         "the model proxy is reached over the control plane's TCP listener, not " +
                             describe(address));
    auto found = lookUp(address);
    if (!found)
        return makeError(ErrorCode::Unavailable, "the model proxy's address: " + found.error().message);
    ForwardTarget target;
    std::memcpy(&target.address, (*found)->ai_addr, (*found)->ai_addrlen);
    target.length = (*found)->ai_addrlen;
    target.preamble = protocol::helloLine(token, protocol::HelloStream::Model);
    return target;
}

} // namespace warren::agent
