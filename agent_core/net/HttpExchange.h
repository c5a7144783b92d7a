#pragma once
// One HTTP/1.1 request from the agent and its answer, read as it arrives (a remote MCP server's answers and
// event streams, DESIGN §13). The way out is the sandbox's: through the control plane's egress proxy when
// WARREN_EGRESS_SOCKET names its socket (plain http in absolute form; https by CONNECT, then TLS inside the
// tunnel, so the proxy's allow-list, its questions and its secrets apply as to any tool), else a direct
// connection. One request per connection (Connection: close). Every step has a deadline and gives up on a
// stop; the server is not trusted: its head is bounded (ResponseHead) and so is what is read of a body.

#include "agent_core/net/NetWait.h"
#include "agent_core/net/TlsClient.h"
#include "common/UniqueFd.h"
#include "common/http/ChunkedDecoder.h"
#include "common/http/HttpUrl.h"
#include "common/http/ResponseHead.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warren::agent {

struct HttpRequest {
    std::string method = "GET";
    HttpUrl url;
    std::vector<std::pair<std::string, std::string>> headers; // besides Host, Content-Length, Connection
    std::string body;
};

// The egress proxy's socket when the sandbox's network goes through it (WARREN_EGRESS_SOCKET), else "".
std::string egressSocketFromEnvironment();

class HttpExchange {
public:
    // egressSocket: the proxy's Unix socket, or "" to connect directly.
    explicit HttpExchange(std::string egressSocket);
    ~HttpExchange();
    HttpExchange(const HttpExchange&) = delete;
    HttpExchange& operator=(const HttpExchange&) = delete;

    // Connects, sends the request and reads the answer's head (head()). A 1xx answer is skipped.
    NetOutcome start(const HttpRequest& request, NetDeadline deadline, const Cancellation* stop);
    const ResponseHead& head() const { return m_head; }

    // Appends the body's next bytes to out, waiting until some come, the body ends (ended()), the deadline
    // or a stop. A body longer than maxBody in all fails.
    NetOutcome readSome(std::string& out, NetDeadline deadline, const Cancellation* stop);
    // The whole body, at most maxBody bytes.
    NetOutcome readAll(std::string& out, NetDeadline deadline, const Cancellation* stop);
    bool ended() const { return m_ended; }
    // An answer that is not the one wanted, for a message: "HTTP 403 Forbidden: " and the start of its body
    // (at most quoted bytes, read for a moment at most: the body of a refusal says why).
    std::string refusal(std::size_t quoted, NetDeadline deadline, const Cancellation* stop);
    // Whether readSome has something without waiting (bytes held here or in TLS).
    bool buffered() const;
    // The socket, readable when more of the body may have come (polled beside other streams).
    int fd() const { return m_fd.get(); }

    void setMaxBody(std::uint64_t maxBody) { m_maxBody = maxBody; }

private:
    NetOutcome connectTo(const HttpUrl& url, NetDeadline deadline, const Cancellation* stop);
    NetOutcome sendBytes(std::string_view bytes, NetDeadline deadline, const Cancellation* stop);
    // Raw bytes from the connection into m_raw; sets m_closed at its end.
    NetOutcome receive(NetDeadline deadline, const Cancellation* stop);
    // The answer's head into m_head, its body's decoding made ready.
    NetOutcome readHead(const std::string& what, NetDeadline deadline, const Cancellation* stop);
    // Decodes what m_raw holds into out by the head's framing.
    NetOutcome decode(std::string& out);

    std::string m_egressSocket;
    UniqueFd m_fd;
    std::unique_ptr<TlsClient> m_tls;
    std::string m_peer; // "host:port", for messages
    std::string m_raw;  // received, not yet decoded
    bool m_closed = false;
    ResponseHead m_head;
    std::optional<ChunkedDecoder> m_chunked;
    std::uint64_t m_bodyRead = 0; // decoded
    std::uint64_t m_maxBody = 16 * 1024 * 1024;
    bool m_ended = false;
};

} // namespace warren::agent
