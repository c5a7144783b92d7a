#pragma once
// A remote MCP server (DESIGN §13), over HTTP as the .mcp.json entry's "type" says:
//   http  streamable HTTP (MCP 2025-06-18): each message POSTed to the URL; a request's answer is the POST's
//         answer, as JSON or as an event stream (text/event-stream) that may carry the server's own requests
//         and notifications first; the session the server names (Mcp-Session-Id) is sent back on each
//         request and deleted on close.
//   sse   HTTP with server-sent events (MCP 2024-11-05): a GET opens the event stream, whose first event
//         names where to POST (on the same origin: a server cannot send the agent's messages elsewhere);
//         answers come on the stream.
// The requests go out as the sandbox's every request does (HttpExchange: through the egress proxy, its
// allow-list and its secrets, when the task's network is a host list), with the entry's headers. A server
// that cannot be reached, refuses, answers garbage or nothing in time is a clear error naming it; a refused
// call leaves the connection usable for the next one; a session the server ended closes it.

#include "agent_core/mcp/McpConnection.h"
#include "agent_core/net/HttpExchange.h"
#include "common/http/HttpUrl.h"
#include "common/http/SseParser.h"

#include <memory>
#include <optional>
#include <string>

namespace warren::agent {

class McpHttpConnection : public McpConnection {
public:
    // Nothing is sent yet (initialize). egressSocket: the egress proxy's socket, or "" to connect directly.
    static Result<std::unique_ptr<McpHttpConnection>> open(const McpServer& server, std::string egressSocket);
    ~McpHttpConnection() override; // close()

    void pollIdle() override;
    void endInput() override {}
    // Deletes the session (streamable HTTP), closes the event stream (sse).
    void close() override;

protected:
    Reply request(protocol::Request message, Deadline deadline, const Cancellation* stop) override;
    void send(const protocol::Message& message, Deadline deadline) override;
    void fail(std::string reason) override;

private:
    McpHttpConnection(const McpServer& server, HttpUrl url, std::string egressSocket);

    HttpRequest requestTo(const HttpUrl& url, std::string method) const;
    // POSTs message; with expectAnswer, what the answer carries (JSON or events) is taken until the answer
    // to the request waiting came or the answer ended.
    NetOutcome post(const protocol::Message& message, bool expectAnswer, Deadline deadline, const Cancellation* stop);
    // Messages in a JSON body or an event's data, taken.
    NetOutcome takeJson(const std::string& text, Deadline deadline);
    // sse: the event stream open and its endpoint known.
    NetOutcome openStream(Deadline deadline, const Cancellation* stop);
    // sse: what the stream has, waiting until deadline at most for some.
    NetOutcome readStream(Deadline deadline, const Cancellation* stop);
    NetOutcome takeEvents(const std::vector<SseEvent>& events, Deadline deadline);

    McpTransport m_transport;
    HttpUrl m_url;
    std::vector<std::pair<std::string, std::string>> m_headers;
    std::string m_egressSocket;
    std::optional<std::string> m_session;  // Mcp-Session-Id
    std::optional<std::string> m_version;  // the protocol version agreed, sent once it is
    std::unique_ptr<HttpExchange> m_stream; // sse
    SseParser m_streamEvents;
    std::size_t m_streamPending = 0; // bytes fed since the stream's last event
    std::optional<HttpUrl> m_endpoint;  // sse: where messages go
};

} // namespace warren::agent
