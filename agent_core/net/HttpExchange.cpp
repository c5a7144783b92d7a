#include "agent_core/net/HttpExchange.h"

#include "agent_core/tools/ToolText.h"
#include "common/Utf8.h"
#include "common/http/RequestHead.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

namespace warren::agent {

namespace {

constexpr std::size_t kReadSize = 64 * 1024;
// What of the egress proxy's refusal is quoted, and how long its body is waited for.
constexpr std::size_t kQuotedBodyBytes = 300;
constexpr auto kRefusalReadTime = std::chrono::seconds(2);

bool hasLineBreakOrNul(std::string_view text) {
    return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

NetOutcome connectSocket(UniqueFd& fd, const sockaddr* address, socklen_t length, NetDeadline deadline,
                         const Cancellation* stop, const std::string& what) {
    fd = UniqueFd(::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid())
        return NetOutcome::failed(what + ": socket: " + std::strerror(errno));
    if (::connect(fd.get(), address, length) == 0)
        return {};
    if (errno != EINPROGRESS && errno != EAGAIN)
        return NetOutcome::failed(what + ": " + std::strerror(errno));
    if (auto waited = waitForSocket(fd.get(), POLLOUT, deadline, stop, what); !waited.ok())
        return waited;
    int error = 0;
    socklen_t size = sizeof error;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0)
        return NetOutcome::failed(what + ": " + std::strerror(error));
    return {};
}

} // namespace

std::string egressSocketFromEnvironment() {
    const char* path = std::getenv("WARREN_EGRESS_SOCKET");
    return path ? std::string(path) : std::string();
}

HttpExchange::HttpExchange(std::string egressSocket) : m_egressSocket(std::move(egressSocket)) {}
HttpExchange::~HttpExchange() {
    m_tls.reset(); // before the socket it uses
}

NetOutcome HttpExchange::connectTo(const HttpUrl& url, NetDeadline deadline, const Cancellation* stop) {
    m_peer = url.host + ":" + std::to_string(url.port);
    if (!m_egressSocket.empty()) {
        sockaddr_un where{};
        where.sun_family = AF_UNIX;
        if (m_egressSocket.size() >= sizeof where.sun_path)
            return NetOutcome::failed("the egress proxy's socket path is too long");
        std::memcpy(where.sun_path, m_egressSocket.c_str(), m_egressSocket.size() + 1);
        return connectSocket(m_fd, reinterpret_cast<const sockaddr*>(&where), sizeof where, deadline, stop,
                             "connecting to the sandbox's egress proxy");
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(url.port);
    if (const int status = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); status != 0)
        return NetOutcome::failed("cannot resolve " + url.host + ": " + ::gai_strerror(status));
    NetOutcome last = NetOutcome::failed("connecting to " + m_peer + ": no address");
    for (addrinfo* entry = found; entry; entry = entry->ai_next) {
        last = connectSocket(m_fd, entry->ai_addr, entry->ai_addrlen, deadline, stop, "connecting to " + m_peer);
        if (last.ok() || last.kind != NetOutcome::Kind::Failed)
            break;
    }
    ::freeaddrinfo(found);
    return last;
}

NetOutcome HttpExchange::sendBytes(std::string_view bytes, NetDeadline deadline, const Cancellation* stop) {
    if (m_tls)
        return m_tls->writeAll(bytes, deadline, stop);
    while (!bytes.empty()) {
        const ssize_t n = ::send(m_fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n > 0) {
            bytes.remove_prefix(std::size_t(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (auto waited = waitForSocket(m_fd.get(), POLLOUT, deadline, stop, "sending to " + m_peer); !waited.ok())
                return waited;
            continue;
        }
        return NetOutcome::failed("sending to " + m_peer + ": " + std::strerror(errno));
    }
    return {};
}

NetOutcome HttpExchange::receive(NetDeadline deadline, const Cancellation* stop) {
    if (m_closed)
        return {};
    if (m_tls)
        return m_tls->readSome(m_raw, m_closed, deadline, stop);
    while (true) {
        char buffer[kReadSize];
        const ssize_t n = ::recv(m_fd.get(), buffer, sizeof buffer, 0);
        if (n > 0) {
            m_raw.append(buffer, std::size_t(n));
            return {};
        }
        if (n == 0) {
            m_closed = true;
            return {};
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return NetOutcome::failed("reading from " + m_peer + ": " + std::strerror(errno));
        if (auto waited = waitForSocket(m_fd.get(), POLLIN, deadline, stop, "waiting for " + m_peer); !waited.ok())
            return waited;
    }
}

NetOutcome HttpExchange::readHead(const std::string& what, NetDeadline deadline, const Cancellation* stop) {
    while (true) {
        auto parsed = parseResponseHead(m_raw);
        if (auto* error = std::get_if<std::string>(&parsed))
            return NetOutcome::failed(what + ": " + *error);
        if (auto* head = std::get_if<ResponseHead>(&parsed)) {
            m_raw.erase(0, head->consumed);
            if (head->status >= 200 || head->status == 101) {
                m_head = std::move(*head);
                m_ended = false;
                m_bodyRead = 0;
                if (m_head.framing == ResponseHead::Framing::Chunked)
                    m_chunked.emplace(m_maxBody, kMaxResponseHeadBytes);
                return {};
            }
            continue; // 100 Continue and the like: the answer follows
        }
        if (m_closed)
            return NetOutcome::failed(what + ": the connection closed before an answer came");
        if (auto received = receive(deadline, stop); !received.ok())
            return received;
    }
}

NetOutcome HttpExchange::start(const HttpRequest& request, NetDeadline deadline, const Cancellation* stop) {
    for (const auto& [name, value] : request.headers)
        if (name.empty() || hasLineBreakOrNul(name) || name.find(':') != std::string::npos || hasLineBreakOrNul(value))
            return NetOutcome::failed("the header \"" + name.substr(0, 64) + "\" cannot be sent: it holds a line break");
    if (auto connected = connectTo(request.url, deadline, stop); !connected.ok())
        return connected;
    const bool viaProxy = !m_egressSocket.empty();
    const std::string authority = request.url.authority();
    if (request.url.tls) {
        if (viaProxy) {
            const std::string hostPort = request.url.hostPort();
            if (auto sent = sendBytes(formatRequest("CONNECT", hostPort, hostPort, {}, {}), deadline, stop); !sent.ok())
                return sent;
            if (auto answered = readHead("the egress proxy's answer to CONNECT " + hostPort, deadline, stop); !answered.ok())
                return answered;
            // The proxy says why (not allowed, not resolvable, refused by the user) in a short body.
            if (m_head.status != 200)
                return NetOutcome::failed("the sandbox's egress proxy refused " + hostPort + ": " +
                                          refusal(kQuotedBodyBytes, deadline, stop));
            m_head = {};
            m_raw.clear();
        }
        NetOutcome shaken;
        m_tls = TlsClient::handshake(m_fd.get(), request.url.host, deadline, stop, shaken);
        if (!m_tls)
            return shaken;
    }
    auto headers = request.headers;
    headers.emplace_back("Connection", "close");
    const std::string target =
        viaProxy && !request.url.tls ? request.url.origin() + request.url.target : request.url.target;
    if (auto sent = sendBytes(formatRequest(request.method, authority, target, headers, request.body), deadline, stop);
        !sent.ok())
        return sent;
    return readHead("the answer of " + m_peer, deadline, stop);
}

NetOutcome HttpExchange::decode(std::string& out) {
    const std::size_t before = out.size();
    switch (m_head.framing) {
    case ResponseHead::Framing::None:
        m_ended = true;
        break;
    case ResponseHead::Framing::Length: {
        const std::uint64_t left = m_head.contentLength - m_bodyRead;
        const std::size_t taken = std::size_t(std::min<std::uint64_t>(left, m_raw.size()));
        out.append(m_raw, 0, taken);
        m_raw.erase(0, taken);
        m_ended = m_bodyRead + taken == m_head.contentLength;
        break;
    }
    case ResponseHead::Framing::Chunked: {
        const std::size_t used = m_chunked->feed(m_raw, out);
        m_raw.erase(0, used);
        if (m_chunked->refused())
            return NetOutcome::failed("the answer of " + m_peer + ": " + m_chunked->error());
        m_ended = m_chunked->complete();
        break;
    }
    case ResponseHead::Framing::UntilClose:
        out += m_raw;
        m_raw.clear();
        m_ended = m_closed;
        break;
    }
    m_bodyRead += out.size() - before;
    if (m_bodyRead > m_maxBody)
        return NetOutcome::failed("the answer of " + m_peer + " is longer than " + std::to_string(m_maxBody) +
                                  " bytes");
    if (!m_ended && m_closed && m_raw.empty())
        return NetOutcome::failed("the connection to " + m_peer + " closed before the end of its answer");
    return {};
}

NetOutcome HttpExchange::readSome(std::string& out, NetDeadline deadline, const Cancellation* stop) {
    while (true) {
        const std::size_t before = out.size();
        if (auto decoded = decode(out); !decoded.ok())
            return decoded;
        if (out.size() > before || m_ended)
            return {};
        if (auto received = receive(deadline, stop); !received.ok())
            return received;
    }
}

NetOutcome HttpExchange::readAll(std::string& out, NetDeadline deadline, const Cancellation* stop) {
    while (!m_ended)
        if (auto read = readSome(out, deadline, stop); !read.ok())
            return read;
    return {};
}

std::string HttpExchange::refusal(std::size_t quoted, NetDeadline deadline, const Cancellation* stop) {
    std::string body;
    const auto soon = std::min(deadline, std::chrono::steady_clock::now() + kRefusalReadTime);
    while (!m_ended && body.size() < quoted && readSome(body, soon, stop).ok()) {
    }
    body = shortenLine(validUtf8(body), quoted);
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r'))
        body.pop_back();
    return "HTTP " + std::to_string(m_head.status) + (m_head.reason.empty() ? "" : " " + m_head.reason) +
           (body.empty() ? "" : ": " + body);
}

bool HttpExchange::buffered() const {
    return !m_raw.empty() || m_closed || m_ended || (m_tls && m_tls->pending());
}

} // namespace warren::agent
