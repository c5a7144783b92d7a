#include "sandbox/cluster/client/KubeHttp.h"

#include "common/OpenSslErrors.h"
#include "common/UniqueFd.h"
#include "common/http/RequestHead.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace warren::kube {

using Clock = std::chrono::steady_clock;

namespace {

std::string opensslErrors() {
    const std::string text = openSslErrors();
    return text.empty() ? std::string("no detail from OpenSSL") : text;
}

enum class Wait { Ready, Interrupted, TimedOut, Failed };

Wait waitFor(int fd, short events, Clock::time_point deadline, int interruptFd) {
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0)
            return Wait::TimedOut;
        pollfd fds[2] = {{fd, events, 0}, {interruptFd, POLLIN, 0}};
        const int count = ::poll(fds, interruptFd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, 60000)));
        if (count < 0) {
            if (errno == EINTR)
                continue;
            return Wait::Failed;
        }
        if (count == 0)
            continue;
        if (interruptFd >= 0 && (fds[1].revents & POLLIN))
            return Wait::Interrupted;
        if (fds[0].revents)
            return Wait::Ready;
    }
}

struct BioDeleter {
    void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

BioPtr memoryBio(const std::string& pem) {
    return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

} // namespace

// One TCP connection, with TLS over it or not. Non-blocking underneath, so every step honours the deadline
// and the interrupt.
class Connection {
public:
    Connection(UniqueFd fd, SSL* ssl, std::string peer) : m_fd(std::move(fd)), m_ssl(ssl), m_peer(std::move(peer)) {}
    ~Connection() {
        if (m_ssl)
            SSL_free(m_ssl);
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    enum class Io { Done, Eof, Interrupted, TimedOut, Failed };
    struct Outcome {
        Io io = Io::Done;
        std::string error;
    };

    Outcome handshake(Clock::time_point deadline, int interruptFd) {
        for (;;) {
            ERR_clear_error();
            const int result = SSL_connect(m_ssl);
            if (result == 1)
                return {};
            const int error = SSL_get_error(m_ssl, result);
            if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
                if (auto waited = await(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, interruptFd);
                    waited.io != Io::Done)
                    return waited;
                continue;
            }
            const long verify = SSL_get_verify_result(m_ssl);
            if (verify != X509_V_OK)
                return {Io::Failed, "TLS: the API server at " + m_peer +
                                        " presented a certificate that does not verify against the kubeconfig's CA (" +
                                        X509_verify_cert_error_string(verify) +
                                        "); check the cluster's certificate-authority and server name"};
            return {Io::Failed, "TLS handshake with the API server at " + m_peer + " failed: " + opensslErrors()};
        }
    }

    Outcome writeAll(std::string_view data, Clock::time_point deadline, int interruptFd) {
        while (!data.empty()) {
            if (m_ssl) {
                ERR_clear_error();
                std::size_t written = 0;
                const int result = SSL_write_ex(m_ssl, data.data(), data.size(), &written);
                if (result == 1) {
                    data.remove_prefix(written);
                    continue;
                }
                const int error = SSL_get_error(m_ssl, result);
                if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
                    if (auto waited = await(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, interruptFd);
                        waited.io != Io::Done)
                        return waited;
                    continue;
                }
                return {Io::Failed, "sending to the API server at " + m_peer + " failed: " + opensslErrors()};
            }
            const ssize_t written = ::send(m_fd.get(), data.data(), data.size(), MSG_NOSIGNAL);
            if (written >= 0) {
                data.remove_prefix(static_cast<std::size_t>(written));
                continue;
            }
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (auto waited = await(POLLOUT, deadline, interruptFd); waited.io != Io::Done)
                    return waited;
                continue;
            }
            return {Io::Failed, "sending to the API server at " + m_peer + " failed: " + std::strerror(errno)};
        }
        return {};
    }

    // Appends what arrives (at least one byte) to out; Eof when the server closed.
    Outcome readSome(std::string& out, Clock::time_point deadline, int interruptFd) {
        char buffer[16384];
        for (;;) {
            if (m_ssl) {
                ERR_clear_error();
                std::size_t got = 0;
                const int result = SSL_read_ex(m_ssl, buffer, sizeof buffer, &got);
                if (result == 1) {
                    out.append(buffer, got);
                    return {};
                }
                const int error = SSL_get_error(m_ssl, result);
                if (error == SSL_ERROR_ZERO_RETURN)
                    return {Io::Eof, {}};
                if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
                    if (auto waited = await(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, interruptFd);
                        waited.io != Io::Done)
                        return waited;
                    continue;
                }
                // A peer that closes without close_notify: for us, the end of the answer.
                if (error == SSL_ERROR_SYSCALL || ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
                    return {Io::Eof, {}};
                return {Io::Failed, "reading from the API server at " + m_peer + " failed: " + opensslErrors()};
            }
            const ssize_t got = ::recv(m_fd.get(), buffer, sizeof buffer, 0);
            if (got > 0) {
                out.append(buffer, static_cast<std::size_t>(got));
                return {};
            }
            if (got == 0)
                return {Io::Eof, {}};
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (auto waited = await(POLLIN, deadline, interruptFd); waited.io != Io::Done)
                    return waited;
                continue;
            }
            if (errno == ECONNRESET)
                return {Io::Eof, {}};
            return {Io::Failed, "reading from the API server at " + m_peer + " failed: " + std::strerror(errno)};
        }
    }

private:
    Outcome await(short events, Clock::time_point deadline, int interruptFd) {
        switch (waitFor(m_fd.get(), events, deadline, interruptFd)) {
        case Wait::Ready:
            return {};
        case Wait::Interrupted:
            return {Io::Interrupted, "interrupted"};
        case Wait::TimedOut:
            return {Io::TimedOut, "the API server at " + m_peer + " did not answer in time"};
        case Wait::Failed:
            break;
        }
        return {Io::Failed, std::string("poll failed: ") + std::strerror(errno)};
    }

    UniqueFd m_fd;
    SSL* m_ssl;
    std::string m_peer;
};

struct KubeHttp::Tls {
    SSL_CTX* context = nullptr;
    ~Tls() {
        if (context)
            SSL_CTX_free(context);
    }
};

namespace {

Error failure(Connection::Outcome outcome) {
    if (outcome.io == Connection::Io::Interrupted)
        return makeError(ErrorCode::Unavailable, "interrupted");
    return makeError(ErrorCode::Unavailable, std::move(outcome.error));
}

} // namespace

KubeHttp::KubeHttp(KubeConfig config, std::string host, std::string port, bool tls)
    : m_config(std::move(config)), m_host(std::move(host)), m_port(std::move(port)) {
    if (tls)
        m_tls = std::make_unique<Tls>();
}

KubeHttp::~KubeHttp() = default;

Result<std::unique_ptr<KubeHttp>> KubeHttp::create(const KubeConfig& config) {
    const bool tls = config.server.rfind("https://", 0) == 0;
    std::string authority = config.server.substr(tls ? 8 : 7);
    if (const auto slash = authority.find('/'); slash != std::string::npos)
        authority.resize(slash);
    std::string host;
    std::string port = tls ? "443" : "80";
    if (!authority.empty() && authority[0] == '[') {
        const auto close = authority.find(']');
        if (close == std::string::npos)
            return makeError(ErrorCode::InvalidArgument, config.source + ": the server URL " + config.server +
                                                             " has an unclosed [");
        host = authority.substr(1, close - 1);
        if (close + 1 < authority.size() && authority[close + 1] == ':')
            port = authority.substr(close + 2);
    } else {
        const auto colon = authority.rfind(':');
        host = authority.substr(0, colon);
        if (colon != std::string::npos)
            port = authority.substr(colon + 1);
    }
    if (host.empty() || port.empty())
        return makeError(ErrorCode::InvalidArgument, config.source + ": the server URL " + config.server +
                                                         " names no host");
    std::unique_ptr<KubeHttp> http(new KubeHttp(config, host, port, tls));
    if (!tls)
        return http;

    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    if (!context)
        return makeError(ErrorCode::System, "OpenSSL cannot make a TLS context: " + opensslErrors());
    http->m_tls->context = context;
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    if (!config.insecureSkipTlsVerify) {
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
        if (config.caPem.empty()) {
            SSL_CTX_set_default_verify_paths(context);
        } else {
            BioPtr bio = memoryBio(config.caPem);
            X509_STORE* store = SSL_CTX_get_cert_store(context);
            int loaded = 0;
            while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
                X509_STORE_add_cert(store, certificate);
                X509_free(certificate);
                ++loaded;
            }
            ERR_clear_error();
            if (loaded == 0)
                return makeError(ErrorCode::InvalidArgument,
                                 config.source + ": the cluster's certificate authority holds no PEM certificate");
        }
    }
    if (!config.clientCertPem.empty()) {
        BioPtr bio = memoryBio(config.clientCertPem);
        X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
        if (!certificate || SSL_CTX_use_certificate(context, certificate) != 1) {
            X509_free(certificate);
            return makeError(ErrorCode::InvalidArgument,
                             config.source + ": the user's client certificate is not a PEM certificate: " +
                                 opensslErrors());
        }
        X509_free(certificate);
        while (X509* intermediate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr))
            SSL_CTX_ctrl(context, SSL_CTRL_EXTRA_CHAIN_CERT, 0, intermediate); // the context owns it now
        ERR_clear_error();
        BioPtr keyBio = memoryBio(config.clientKeyPem);
        EVP_PKEY* key = PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr);
        const bool usable = key && SSL_CTX_use_PrivateKey(context, key) == 1 && SSL_CTX_check_private_key(context) == 1;
        EVP_PKEY_free(key);
        if (!usable)
            return makeError(ErrorCode::InvalidArgument,
                             config.source + ": the user's client key is not a PEM key of its certificate: " +
                                 opensslErrors());
    }
    return http;
}

Result<std::unique_ptr<Connection>> KubeHttp::open(Clock::time_point deadline, int interruptFd) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* addresses = nullptr;
    if (const int error = ::getaddrinfo(m_host.c_str(), m_port.c_str(), &hints, &addresses); error != 0)
        return makeError(ErrorCode::Unavailable, "cannot find the cluster's API server " + m_config.server + ": " +
                                                     gai_strerror(error));
    std::unique_ptr<addrinfo, void (*)(addrinfo*)> held(addresses, freeaddrinfo);
    std::string lastError = "no address";
    for (addrinfo* address = addresses; address; address = address->ai_next) {
        UniqueFd fd(::socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                             address->ai_protocol));
        if (!fd.valid()) {
            lastError = std::strerror(errno);
            continue;
        }
        if (::connect(fd.get(), address->ai_addr, address->ai_addrlen) != 0) {
            if (errno != EINPROGRESS) {
                lastError = std::strerror(errno);
                continue;
            }
            const Wait waited = waitFor(fd.get(), POLLOUT, deadline, interruptFd);
            if (waited == Wait::Interrupted)
                return makeError(ErrorCode::Unavailable, "interrupted");
            if (waited == Wait::TimedOut)
                return makeError(ErrorCode::Unavailable, "cannot connect to the cluster's API server at " +
                                                             m_config.server + ": no answer in time");
            int error = 0;
            socklen_t length = sizeof error;
            ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
            if (error != 0) {
                lastError = std::strerror(error);
                continue;
            }
        }
        const int one = 1;
        ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!m_tls)
            return std::make_unique<Connection>(std::move(fd), nullptr, m_host + ":" + m_port);

        SSL* ssl = SSL_new(m_tls->context);
        if (!ssl)
            return makeError(ErrorCode::System, "OpenSSL cannot make a TLS session: " + opensslErrors());
        const int rawFd = fd.get();
        auto connection = std::make_unique<Connection>(std::move(fd), ssl, m_host + ":" + m_port);
        SSL_set_fd(ssl, rawFd);
        const std::string& expected = m_config.tlsServerName.empty() ? m_host : m_config.tlsServerName;
        in6_addr probe{};
        const bool isAddress = ::inet_pton(AF_INET, expected.c_str(), &probe) == 1 ||
                               ::inet_pton(AF_INET6, expected.c_str(), &probe) == 1;
        if (!m_config.insecureSkipTlsVerify) {
            if (isAddress)
                X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), expected.c_str());
            else
                SSL_set1_host(ssl, expected.c_str());
        }
        if (!isAddress)
            SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                     const_cast<char*>(expected.c_str())); // SSL_set_tlsext_host_name, without its C cast
        if (auto shaken = connection->handshake(deadline, interruptFd); shaken.io != Connection::Io::Done)
            return failure(std::move(shaken));
        return connection;
    }
    return makeError(ErrorCode::Unavailable, "cannot connect to the cluster's API server at " + m_config.server +
                                                 ": " + lastError + " (is the cluster up, and the kubeconfig's "
                                                                    "server right?)");
}

Result<std::pair<std::unique_ptr<Connection>, std::pair<ResponseHead, std::string>>>
KubeHttp::exchange(const ApiRequest& request, Clock::time_point deadline, int interruptFd) {
    auto connection = open(deadline, interruptFd);
    if (!connection)
        return connection.error();
    std::vector<std::pair<std::string, std::string>> headers = {{"Accept", "application/json"},
                                                                {"User-Agent", "warren"}};
    if (!request.body.empty())
        headers.emplace_back("Content-Type", "application/json");
    if (!m_config.token.empty())
        headers.emplace_back("Authorization", "Bearer " + m_config.token);
    const bool ipv6 = m_host.find(':') != std::string::npos;
    const std::string hostHeader = (ipv6 ? "[" + m_host + "]" : m_host) + ":" + m_port;
    const std::string bytes = formatRequest(request.method, hostHeader, request.path, headers, request.body);
    if (auto sent = (*connection)->writeAll(bytes, deadline, interruptFd); sent.io != Connection::Io::Done)
        return failure(std::move(sent));
    std::string raw;
    for (;;) {
        auto parsed = parseResponseHead(raw);
        if (auto* error = std::get_if<std::string>(&parsed))
            return makeError(ErrorCode::Unavailable, "the API server at " + m_config.server + " answered what is not "
                                                         "HTTP/1.1: " + *error);
        if (auto* head = std::get_if<ResponseHead>(&parsed)) {
            raw.erase(0, head->consumed);
            return std::make_pair(std::move(*connection), std::make_pair(std::move(*head), std::move(raw)));
        }
        auto read = (*connection)->readSome(raw, deadline, interruptFd);
        if (read.io == Connection::Io::Eof)
            return makeError(ErrorCode::Unavailable, "the API server at " + m_config.server +
                                                         " closed the connection without answering");
        if (read.io != Connection::Io::Done)
            return failure(std::move(read));
    }
}

Result<HttpAnswer> KubeHttp::send(const ApiRequest& request, std::chrono::milliseconds timeout, int interruptFd) {
    const auto deadline = Clock::now() + timeout;
    auto started = exchange(request, deadline, interruptFd);
    if (!started)
        return started.error();
    auto& [connection, headAndRest] = *started;
    auto& [head, raw] = headAndRest;
    HttpAnswer answer;
    answer.status = head.status;
    answer.contentType = head.header("content-type").value_or("");
    if (request.method == "HEAD")
        head.framing = ResponseHead::Framing::None;
    auto body = readBody(*connection, head, raw, deadline, interruptFd);
    if (!body)
        return body.error();
    answer.body = std::move(*body);
    return answer;
}

Result<std::string> KubeHttp::readBody(Connection& connection, const ResponseHead& head, std::string& raw,
                                       Clock::time_point deadline, int interruptFd) {
    std::string body;
    ChunkedDecoder chunks(kMaxResponseBody, kMaxResponseHeadBytes);
    const auto tooLarge = [&] {
        return makeError(ErrorCode::Unavailable, "the API server's answer is larger than 16 MiB");
    };
    for (;;) {
        switch (head.framing) {
        case ResponseHead::Framing::None:
            return body;
        case ResponseHead::Framing::Chunked:
            raw.erase(0, chunks.feed(raw, body));
            if (chunks.tooLarge())
                return tooLarge();
            if (chunks.refused())
                return makeError(ErrorCode::Unavailable, "the API server's answer is not HTTP/1.1: " + chunks.error());
            if (chunks.complete())
                return body;
            break;
        case ResponseHead::Framing::Length:
            if (head.contentLength > kMaxResponseBody)
                return tooLarge();
            if (raw.size() >= head.contentLength) {
                raw.resize(head.contentLength);
                return std::move(raw);
            }
            break;
        case ResponseHead::Framing::UntilClose:
            if (raw.size() > kMaxResponseBody)
                return tooLarge();
            break;
        }
        auto read = connection.readSome(raw, deadline, interruptFd);
        if (read.io == Connection::Io::Eof) {
            if (head.framing != ResponseHead::Framing::UntilClose)
                return makeError(ErrorCode::Unavailable, "the API server at " + m_config.server +
                                                             " closed the connection in the middle of its answer");
            return std::move(raw); // delimited by the close
        }
        if (read.io != Connection::Io::Done)
            return failure(std::move(read));
    }
}

Result<KubeHttp::WatchStart> KubeHttp::watch(const ApiRequest& request, std::chrono::milliseconds timeout,
                                             int interruptFd) {
    const auto deadline = Clock::now() + timeout;
    auto started = exchange(request, deadline, interruptFd);
    if (!started)
        return started.error();
    auto& [connection, headAndRest] = *started;
    auto& [head, raw] = headAndRest;
    WatchStart start;
    if (head.status == 200) {
        start.stream = std::make_unique<WatchStream>(std::move(connection), std::move(head), std::move(raw));
        return start;
    }
    // Read the refusal whole: a short Status.
    start.refused.status = head.status;
    auto body = readBody(*connection, head, raw, deadline, interruptFd);
    if (!body)
        return body.error();
    start.refused.body = std::move(*body);
    return start;
}

WatchStream::WatchStream(std::unique_ptr<Connection> connection, ResponseHead head, std::string pending)
    : m_connection(std::move(connection)), m_head(std::move(head)), m_raw(std::move(pending)),
      m_chunks(UINT64_MAX, kMaxResponseHeadBytes) {} // a watch lasts; each line is bounded instead

WatchStream::~WatchStream() = default;

Result<WatchStream::Read> WatchStream::nextLine(Clock::time_point deadline, int interruptFd) {
    for (;;) {
        if (m_head.framing == ResponseHead::Framing::Chunked) {
            m_raw.erase(0, m_chunks.feed(m_raw, m_lines));
            if (m_chunks.refused())
                return makeError(ErrorCode::Unavailable, "the API server's watch is not HTTP/1.1: " + m_chunks.error());
            m_ended = m_ended || m_chunks.complete();
        } else {
            m_lines += m_raw;
            m_raw.clear();
        }
        if (const auto newline = m_lines.find('\n'); newline != std::string::npos) {
            Read read{Outcome::Line, m_lines.substr(0, newline)};
            m_lines.erase(0, newline + 1);
            if (!read.line.empty() && read.line.back() == '\r')
                read.line.pop_back();
            if (read.line.empty())
                continue;
            return read;
        }
        if (m_lines.size() > kMaxWatchLine)
            return makeError(ErrorCode::Unavailable, "the API server sent a watch event over 4 MiB");
        if (m_ended)
            return Read{Outcome::Ended, {}};
        auto got = m_connection->readSome(m_raw, deadline, interruptFd);
        switch (got.io) {
        case Connection::Io::Done:
            break;
        case Connection::Io::Eof:
        case Connection::Io::Failed: // a dropped connection: the caller resumes from its last version
            m_ended = true;
            break;
        case Connection::Io::Interrupted:
            return Read{Outcome::Interrupted, {}};
        case Connection::Io::TimedOut:
            return Read{Outcome::TimedOut, {}};
        }
    }
}

} // namespace warren::kube
