#pragma once
// TLS over a connected, non-blocking socket, as a client (OpenSSL): the server's certificate verified
// against the trust store for the host the URL names (SNI for a name; an address literal checked as one).
// The store is the system's, or the file SSL_CERT_FILE names (in a sandbox with a task's secrets: the
// bundle with the task's own authority, DESIGN §12). Every step has a deadline and gives up on a stop.

#include "agent_core/net/NetWait.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace warren::agent {

class TlsClient {
public:
    // The handshake on fd (which stays the caller's, and must outlive this).
    static std::unique_ptr<TlsClient> handshake(int fd, const std::string& host, NetDeadline deadline,
                                                const Cancellation* stop, NetOutcome& outcome);
    ~TlsClient();
    TlsClient(const TlsClient&) = delete;
    TlsClient& operator=(const TlsClient&) = delete;

    NetOutcome writeAll(std::string_view bytes, NetDeadline deadline, const Cancellation* stop);
    // Reads what is there, waiting until something is (or the deadline or a stop): appends to out, sets
    // ended at the close of the stream.
    NetOutcome readSome(std::string& out, bool& ended, NetDeadline deadline, const Cancellation* stop);
    // Decrypted bytes held that the socket will not announce again.
    bool pending() const;

private:
    struct State;
    explicit TlsClient(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

} // namespace warren::agent
