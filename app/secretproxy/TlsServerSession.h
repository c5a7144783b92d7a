#pragma once
// The server's end of one TLS connection whose bytes travel elsewhere (the egress proxy's Unix socket to the
// sandbox): OpenSSL over memory buffers. The caller moves bytes: what the client sent goes into receive(),
// which returns the plaintext that can be read now; plaintext to the client goes into send(); after each,
// takeOutput() is what to write to the client. No socket, no event loop.

#include "common/Result.h"

#include <string>
#include <string_view>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace warren::control {

class TlsServerSession {
public:
    explicit TlsServerSession(SSL_CTX* context); // the context (TaskAuthority's) outlives the session
    ~TlsServerSession();
    TlsServerSession(const TlsServerSession&) = delete;
    TlsServerSession& operator=(const TlsServerSession&) = delete;

    // An error ends the session: the client's handshake failed (it does not trust the task's authority, it
    // speaks no TLS) or it sent something TLS refuses; the message says which, in OpenSSL's words.
    Result<std::string> receive(std::string_view ciphertext);
    Status send(std::string_view plaintext);
    void close();             // a close_notify, in the output
    std::string takeOutput(); // what to write to the client now
    bool established() const;
    bool closedByClient() const { return m_closedByClient; } // the client's close_notify arrived

private:
    SSL* m_ssl = nullptr;
    void* m_in = nullptr;  // BIO*: what the client sent, for OpenSSL to read
    void* m_out = nullptr; // BIO*: what OpenSSL wrote, for the client
    bool m_closedByClient = false;
};

} // namespace warren::control
