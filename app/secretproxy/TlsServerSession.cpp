#include "app/secretproxy/TlsServerSession.h"

#include "common/OpenSslErrors.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace warren::control {

TlsServerSession::TlsServerSession(SSL_CTX* context) : m_ssl(SSL_new(context)) {
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(in, -1); // an empty input is "more to come", not the end
    m_in = in;
    m_out = out;
    if (m_ssl) {
        SSL_set_bio(m_ssl, in, out); // the session owns both now
        SSL_set_accept_state(m_ssl);
    } else {
        BIO_free(in);
        BIO_free(out);
    }
}

TlsServerSession::~TlsServerSession() {
    SSL_free(m_ssl);
}

bool TlsServerSession::established() const {
    return m_ssl && SSL_is_init_finished(m_ssl);
}

Result<std::string> TlsServerSession::receive(std::string_view ciphertext) {
    if (!m_ssl)
        return makeError(ErrorCode::System, "OpenSSL could not make a TLS session: " + openSslErrors());
    if (!ciphertext.empty() &&
        BIO_write(static_cast<BIO*>(m_in), ciphertext.data(), static_cast<int>(ciphertext.size())) <= 0)
        return makeError(ErrorCode::System, "OpenSSL could not take the client's bytes");
    std::string plaintext;
    char buffer[16384];
    while (true) {
        const int read = SSL_read(m_ssl, buffer, sizeof buffer);
        if (read > 0) {
            plaintext.append(buffer, std::size_t(read));
            continue;
        }
        const int error = SSL_get_error(m_ssl, read);
        if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE)
            return plaintext;
        if (error == SSL_ERROR_ZERO_RETURN) {
            m_closedByClient = true;
            return plaintext;
        }
        const std::string why = openSslErrors();
        return makeError(ErrorCode::InvalidArgument,
                         std::string(established() ? "the TLS connection broke" : "the TLS handshake failed") +
                             (why.empty() ? std::string() : ": " + why));
    }
}

Status TlsServerSession::send(std::string_view plaintext) {
    while (!plaintext.empty()) {
        const int written = SSL_write(m_ssl, plaintext.data(), static_cast<int>(std::min<std::size_t>(plaintext.size(), 1 << 30)));
        if (written <= 0)
            return makeError(ErrorCode::System, "the TLS connection cannot be written: " + openSslErrors());
        plaintext.remove_prefix(std::size_t(written));
    }
    return Ok{};
}

void TlsServerSession::close() {
    if (m_ssl && established())
        SSL_shutdown(m_ssl);
}

std::string TlsServerSession::takeOutput() {
    std::string bytes;
    char* data = nullptr;
    const long length = BIO_get_mem_data(static_cast<BIO*>(m_out), &data);
    if (length > 0) {
        bytes.assign(data, std::size_t(length));
        (void)BIO_reset(static_cast<BIO*>(m_out));
    }
    return bytes;
}

} // namespace warren::control
