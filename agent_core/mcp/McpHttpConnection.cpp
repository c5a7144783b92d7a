#include "agent_core/mcp/McpHttpConnection.h"

#include "agent_core/protocol/SetupNotices.h"

#include <algorithm>
#include <poll.h>

namespace warren::agent {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// What of a refusal's body is quoted.
constexpr std::size_t kQuotedBytes = 300;
constexpr std::size_t kMaxSessionIdBytes = 1024;

// The spec's session id: visible ASCII only.
bool isSessionId(const std::string& text) {
    return !text.empty() && text.size() <= kMaxSessionIdBytes &&
           std::all_of(text.begin(), text.end(), [](unsigned char c) { return c >= 0x21 && c <= 0x7e; });
}

std::string methodOf(const protocol::Message& message) {
    if (auto* request = std::get_if<protocol::Request>(&message))
        return request->method;
    if (auto* notification = std::get_if<protocol::Notification>(&message))
        return notification->method;
    return "an answer";
}

} // namespace

Result<std::unique_ptr<McpHttpConnection>> McpHttpConnection::open(const McpServer& server, std::string egressSocket) {
    auto url = parseHttpUrl(server.url);
    if (!url)
        return makeError(ErrorCode::InvalidArgument, protocol::mcpServerLabel(server.name) + ": " + url.error().message);
    if (server.transport == McpTransport::Stdio)
        return makeError(ErrorCode::InvalidArgument, protocol::mcpServerLabel(server.name) + " is not a remote server");
    return std::unique_ptr<McpHttpConnection>(new McpHttpConnection(server, std::move(url).value(), std::move(egressSocket)));
}

McpHttpConnection::McpHttpConnection(const McpServer& server, HttpUrl url, std::string egressSocket)
    : McpConnection(server.name), m_transport(server.transport), m_url(std::move(url)), m_headers(server.headers),
      m_egressSocket(std::move(egressSocket)) {}

McpHttpConnection::~McpHttpConnection() {
    close();
}

HttpRequest McpHttpConnection::requestTo(const HttpUrl& url, std::string method) const {
    HttpRequest request;
    request.method = std::move(method);
    request.url = url;
    request.headers = m_headers;
    if (m_session)
        request.headers.emplace_back("Mcp-Session-Id", *m_session);
    if (m_version && m_transport == McpTransport::Http)
        request.headers.emplace_back("MCP-Protocol-Version", *m_version);
    return request;
}

NetOutcome McpHttpConnection::takeJson(const std::string& text, Deadline deadline) {
    auto decoded = protocol::decodeMessage(text);
    if (auto* invalid = std::get_if<protocol::InvalidMessage>(&decoded))
        return NetOutcome::failed(m_label + " sent what is not a JSON-RPC message (" + invalid->error.message + ")");
    takeMessage(std::move(std::get<protocol::Message>(decoded)), deadline);
    return {};
}

NetOutcome McpHttpConnection::takeEvents(const std::vector<SseEvent>& events, Deadline deadline) {
    for (const auto& event : events) {
        m_streamPending = 0;
        if (!event.event.empty() && event.event != "message")
            continue; // "endpoint" is read where it is waited for; others say nothing to a client
        if (event.data.empty())
            continue;
        if (auto taken = takeJson(event.data, deadline); !taken.ok())
            return taken;
    }
    return {};
}

NetOutcome McpHttpConnection::post(const protocol::Message& message, bool expectAnswer, Deadline deadline,
                                   const Cancellation* stop) {
    const HttpUrl& target = m_transport == McpTransport::Sse ? *m_endpoint : m_url;
    HttpRequest request = requestTo(target, "POST");
    request.headers.emplace_back("Content-Type", "application/json");
    request.headers.emplace_back("Accept", "application/json, text/event-stream");
    request.body = protocol::serialize(message);
    HttpExchange exchange(m_egressSocket);
    exchange.setMaxBody(kMaxMcpFrameBytes);
    if (auto started = exchange.start(request, deadline, stop); !started.ok()) {
        started.message = m_label + ": " + methodOf(message) + ": " + started.message;
        return started;
    }
    const ResponseHead& head = exchange.head();
    if (head.status == 404 && m_session) {
        fail(m_label + " ended its session (HTTP 404 to " + methodOf(message) + ")");
        return NetOutcome::failed(closedReason());
    }
    if (head.status < 200 || head.status >= 300)
        return NetOutcome::failed(m_label + " refused " + methodOf(message) + ": " + exchange.refusal(kQuotedBytes, deadline, stop));
    if (const auto session = head.header("mcp-session-id"); session && !m_session) {
        if (!isSessionId(*session))
            return NetOutcome::failed(m_label + " named a session that is not one (Mcp-Session-Id must be visible ASCII, at most " +
                                      std::to_string(kMaxSessionIdBytes) + " bytes)");
        m_session = *session;
    }
    if (!expectAnswer || m_transport == McpTransport::Sse || head.status == 202)
        return {}; // what it answered carries no message (sse: the answer comes on the stream)
    const std::string type = mediaType(head.header("content-type").value_or(""));
    if (type == "application/json") {
        std::string body;
        if (auto read = exchange.readAll(body, deadline, stop); !read.ok()) {
            read.message = m_label + ": " + read.message;
            return read;
        }
        return takeJson(body, deadline);
    }
    if (type != "text/event-stream")
        return NetOutcome::failed(m_label + " answered " + methodOf(message) + " with \"" + type +
                                  "\", neither application/json nor text/event-stream");
    // The answer's events until the one this request waits for: those before it may be the server's own
    // requests and notifications.
    SseParser events;
    std::size_t pending = 0;
    while (!answered() && !exchange.ended()) {
        std::string bytes;
        if (auto read = exchange.readSome(bytes, deadline, stop); !read.ok()) {
            read.message = m_label + ": " + read.message;
            return read;
        }
        pending += bytes.size();
        auto got = events.feed(bytes);
        if (!got.empty())
            pending = 0;
        if (pending > kMaxMcpFrameBytes)
            return NetOutcome::failed(m_label + " sent an event longer than " + std::to_string(kMaxMcpFrameBytes) + " bytes");
        if (auto taken = takeEvents(got, deadline); !taken.ok())
            return taken;
    }
    if (!answered())
        if (auto taken = takeEvents(events.finish(), deadline); !taken.ok())
            return taken;
    return {};
}

NetOutcome McpHttpConnection::openStream(Deadline deadline, const Cancellation* stop) {
    if (m_stream)
        return {};
    HttpRequest request = requestTo(m_url, "GET");
    request.headers.emplace_back("Accept", "text/event-stream");
    auto stream = std::make_unique<HttpExchange>(m_egressSocket);
    stream->setMaxBody(UINT64_MAX); // the stream lasts; each event is bounded instead
    if (auto started = stream->start(request, deadline, stop); !started.ok()) {
        started.message = m_label + ": opening its event stream: " + started.message;
        return started;
    }
    if (stream->head().status != 200)
        return NetOutcome::failed(m_label + " refused its event stream: " + stream->refusal(kQuotedBytes, deadline, stop));
    if (mediaType(stream->head().header("content-type").value_or("")) != "text/event-stream")
        return NetOutcome::failed(m_label + " answered the GET for its event stream with another content type than "
                                            "text/event-stream: is \"type\": \"sse\" right for it?");
    m_stream = std::move(stream);
    m_streamEvents = SseParser();
    m_streamPending = 0;
    while (!m_endpoint) {
        std::string bytes;
        if (auto read = m_stream->readSome(bytes, deadline, stop); !read.ok()) {
            read.message = m_label + ": waiting for its endpoint event: " + read.message;
            return read;
        }
        if (m_stream->ended())
            return NetOutcome::failed(m_label + " closed its event stream before naming its endpoint");
        m_streamPending += bytes.size();
        for (const auto& event : m_streamEvents.feed(bytes)) {
            m_streamPending = 0;
            if (event.event != "endpoint")
                continue;
            auto endpoint = resolveUrl(m_url, event.data);
            if (!endpoint)
                return NetOutcome::failed(m_label + " named an endpoint that is not usable: " + endpoint.error().message);
            if (endpoint->origin() != m_url.origin())
                return NetOutcome::failed(m_label + " named an endpoint on another origin (" + endpoint->origin() +
                                          ", not " + m_url.origin() + "): its messages are not sent there");
            m_endpoint = std::move(endpoint).value();
            break;
        }
        if (m_streamPending > kMaxMcpFrameBytes)
            return NetOutcome::failed(m_label + " sent an event longer than " + std::to_string(kMaxMcpFrameBytes) + " bytes");
    }
    return {};
}

NetOutcome McpHttpConnection::readStream(Deadline deadline, const Cancellation* stop) {
    if (!m_stream)
        return NetOutcome::failed(closedReason());
    std::string bytes;
    if (auto read = m_stream->readSome(bytes, deadline, stop); !read.ok())
        return read;
    if (m_stream->ended()) {
        fail(m_label + " closed its event stream");
        return NetOutcome::failed(closedReason());
    }
    m_streamPending += bytes.size();
    auto events = m_streamEvents.feed(bytes);
    if (m_streamPending > kMaxMcpFrameBytes && events.empty()) {
        fail(m_label + " sent an event longer than " + std::to_string(kMaxMcpFrameBytes) + " bytes; the connection was closed");
        return NetOutcome::failed(closedReason());
    }
    return takeEvents(events, deadline);
}

McpHttpConnection::Reply McpHttpConnection::request(protocol::Request message, Deadline deadline,
                                                    const Cancellation* stop) {
    if (!isOpen())
        return {Reply::Kind::Closed, {}, closedReason()};
    const auto sent = Clock::now();
    const protocol::Id id = message.id;
    const std::string method = message.method;
    const auto outcomeReply = [&](const NetOutcome& outcome) -> Reply {
        const auto sendBy = Clock::now() + kMcpExitGrace;
        switch (outcome.kind) {
        case NetOutcome::Kind::TimedOut:
            return giveUp(id, Reply::Kind::TimedOut,
                          m_label + " did not answer " + method + " within " + secondsBetween(sent, deadline), sendBy);
        case NetOutcome::Kind::Stopped:
            return giveUp(id, Reply::Kind::Cancelled, m_label + ": " + method + " was given up: a stop was requested",
                          sendBy);
        default:
            if (!isOpen())
                return {Reply::Kind::Closed, {}, closedReason()};
            // A refusal or a network failure: this call failed; the next may go through.
            forgetAwaited();
            return {Reply::Kind::Error, {}, outcome.message};
        }
    };
    if (m_transport == McpTransport::Sse)
        if (auto opened = openStream(deadline, stop); !opened.ok()) {
            m_stream.reset();
            return outcomeReply(opened);
        }
    await(id);
    if (auto posted = post(message, true, deadline, stop); !posted.ok())
        return outcomeReply(posted);
    while (!answered()) {
        if (!isOpen())
            return {Reply::Kind::Closed, {}, closedReason()};
        if (m_transport != McpTransport::Sse)
            return outcomeReply(NetOutcome::failed(m_label + " ended its answer to " + method + " without answering it"));
        if (auto read = readStream(deadline, stop); !read.ok())
            return outcomeReply(read);
    }
    Reply reply = takeAnswer(method);
    if (method == "initialize" && reply.kind == Reply::Kind::Result && reply.result.is_object())
        if (auto version = reply.result.find("protocolVersion"); version != reply.result.end() && version->is_string())
            m_version = version->get<std::string>();
    return reply;
}

void McpHttpConnection::send(const protocol::Message& message, Deadline deadline) {
    // sse: nowhere to send it until the stream named its endpoint (a request given up on while it opened).
    if (!isOpen() || (m_transport == McpTransport::Sse && !m_endpoint))
        return;
    // A notification or an answer: the server acknowledges it (202) and nothing comes back for it.
    auto posted = post(message, false, std::max(deadline, Clock::now() + kMcpExitGrace), nullptr);
    (void)posted; // best effort: a lost notification is not worth ending the connection for
}

void McpHttpConnection::pollIdle() {
    if (!isOpen() || !m_stream)
        return;
    pollfd ready{m_stream->fd(), POLLIN, 0};
    while (isOpen() && m_stream && (m_stream->buffered() || ::poll(&ready, 1, 0) > 0)) {
        if (!readStream(Clock::now(), nullptr).ok())
            return;
        ready.revents = 0;
    }
}

void McpHttpConnection::fail(std::string reason) {
    markClosed(std::move(reason));
    m_stream.reset();
}

void McpHttpConnection::close() {
    if (!isOpen())
        return;
    if (m_transport == McpTransport::Http && m_session) {
        // The server may free the session now rather than when it times out.
        HttpExchange exchange(m_egressSocket);
        auto ended = exchange.start(requestTo(m_url, "DELETE"), Clock::now() + kMcpExitGrace, nullptr);
        (void)ended;
    }
    markClosed(m_label + " was closed");
    m_stream.reset();
}

} // namespace warren::agent
