#include "agent_core/net/TlsClient.h"

#include "common/OpenSslErrors.h"

#include <arpa/inet.h>
#include <mutex>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>

namespace warren::agent {

namespace {

constexpr std::size_t kReadSize = 64 * 1024;

// One context for the process, its trust store read once.
SSL_CTX* clientContext(std::string& error) {
    static std::once_flag once;
    static SSL_CTX* context = nullptr;
    static std::string failure;
    std::call_once(once, [] {
        SSL_CTX* made = SSL_CTX_new(TLS_client_method());
        if (!made) {
            failure = "TLS: " + openSslErrors();
            return;
        }
        SSL_CTX_set_min_proto_version(made, TLS1_2_VERSION);
        SSL_CTX_set_verify(made, SSL_VERIFY_PEER, nullptr);
        // SSL_CERT_FILE and SSL_CERT_DIR when set, else the system's store.
        if (SSL_CTX_set_default_verify_paths(made) != 1) {
            failure = "TLS: the trust store cannot be read: " + openSslErrors();
            SSL_CTX_free(made);
            return;
        }
        // A server that closes without close_notify ends the stream; the framing says whether it was whole.
        SSL_CTX_set_options(made, SSL_OP_IGNORE_UNEXPECTED_EOF);
        context = made;
    });
    error = failure;
    return context;
}

bool isAddressLiteral(const std::string& host) {
    in6_addr address6;
    in_addr address4;
    return inet_pton(AF_INET, host.c_str(), &address4) == 1 || inet_pton(AF_INET6, host.c_str(), &address6) == 1;
}

} // namespace

struct TlsClient::State {
    SSL* ssl = nullptr;
    int fd = -1;
    ~State() {
        if (ssl)
            SSL_free(ssl);
    }

    // What SSL_* returned, as a wait for the socket or an outcome; nullopt: go on.
    NetOutcome settle(int result, NetDeadline deadline, const Cancellation* stop, const std::string& what) {
        switch (SSL_get_error(ssl, result)) {
        case SSL_ERROR_WANT_READ:
            return waitForSocket(fd, POLLIN, deadline, stop, what);
        case SSL_ERROR_WANT_WRITE:
            return waitForSocket(fd, POLLOUT, deadline, stop, what);
        default: {
            std::string why = openSslErrors();
            const long verified = SSL_get_verify_result(ssl);
            if (verified != X509_V_OK)
                why = std::string("the server's certificate is not trusted: ") +
                      X509_verify_cert_error_string(verified) +
                      " (is its authority in SSL_CERT_FILE or the system's store?)";
            return NetOutcome::failed(what + " failed: " + (why.empty() ? "the connection closed" : why));
        }
        }
    }
};

TlsClient::TlsClient(std::unique_ptr<State> state) : m_state(std::move(state)) {}
TlsClient::~TlsClient() = default;

std::unique_ptr<TlsClient> TlsClient::handshake(int fd, const std::string& host, NetDeadline deadline,
                                                const Cancellation* stop, NetOutcome& outcome) {
    std::string error;
    SSL_CTX* context = clientContext(error);
    if (!context) {
        outcome = NetOutcome::failed(error);
        return nullptr;
    }
    auto state = std::make_unique<State>();
    state->fd = fd;
    state->ssl = SSL_new(context);
    const bool literal = isAddressLiteral(host);
    if (!state->ssl || SSL_set_fd(state->ssl, fd) != 1 ||
        (!literal && SSL_ctrl(state->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                              const_cast<char*>(host.c_str())) != 1) ||
        (literal ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(state->ssl), host.c_str()) != 1
                 : SSL_set1_host(state->ssl, host.c_str()) != 1)) {
        outcome = NetOutcome::failed("TLS with " + host + ": " + openSslErrors());
        return nullptr;
    }
    SSL_set_connect_state(state->ssl);
    const std::string what = "the TLS handshake with " + host;
    while (true) {
        ERR_clear_error();
        const int result = SSL_do_handshake(state->ssl);
        if (result == 1)
            break;
        outcome = state->settle(result, deadline, stop, what);
        if (!outcome.ok())
            return nullptr;
    }
    outcome = {};
    return std::unique_ptr<TlsClient>(new TlsClient(std::move(state)));
}

NetOutcome TlsClient::writeAll(std::string_view bytes, NetDeadline deadline, const Cancellation* stop) {
    while (!bytes.empty()) {
        ERR_clear_error();
        std::size_t written = 0;
        const int result = SSL_write_ex(m_state->ssl, bytes.data(), bytes.size(), &written);
        if (result == 1) {
            bytes.remove_prefix(written);
            continue;
        }
        if (auto outcome = m_state->settle(result, deadline, stop, "sending over TLS"); !outcome.ok())
            return outcome;
    }
    return {};
}

NetOutcome TlsClient::readSome(std::string& out, bool& ended, NetDeadline deadline, const Cancellation* stop) {
    char buffer[kReadSize];
    while (true) {
        ERR_clear_error();
        std::size_t read = 0;
        const int result = SSL_read_ex(m_state->ssl, buffer, sizeof buffer, &read);
        if (result == 1) {
            out.append(buffer, read);
            return {};
        }
        const int error = SSL_get_error(m_state->ssl, result);
        if (error == SSL_ERROR_ZERO_RETURN) {
            ended = true;
            return {};
        }
        if (auto outcome = m_state->settle(result, deadline, stop, "reading over TLS"); !outcome.ok())
            return outcome;
    }
}

bool TlsClient::pending() const {
    return SSL_pending(m_state->ssl) > 0;
}

} // namespace warren::agent
