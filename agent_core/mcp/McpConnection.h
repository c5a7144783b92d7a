#pragma once
// One MCP server as the agent talks to it, whatever carries the messages: a child over stdio
// (McpStdioConnection) or a remote server over HTTP (McpHttpConnection: streamable HTTP, or the older
// HTTP+SSE). What MCP says is the same on each and is here: the handshake, the tool list page after page,
// a tool call, the server's own requests answered (McpWire: ping), notifications/tools/list_changed noted,
// an answer matched to the request waiting for it. One request at a time, each with a deadline, given up
// (and the server told so) on a stop; nothing here throws, and nothing waits without a deadline.
//
// For one thread, the one that made it.

#include "agent_core/mcp/McpServers.h"
#include "agent_core/mcp/McpWire.h"
#include "agent_core/tools/Cancellation.h"
#include "common/Result.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::agent {

inline constexpr std::size_t kMaxMcpFrameBytes = 8 * 1024 * 1024; // one message
// On close: how long the server has to end (a child to exit, a remote session to be deleted).
inline constexpr std::chrono::seconds kMcpExitGrace{2};

class McpConnection {
public:
    using Deadline = std::chrono::steady_clock::time_point;

    struct Reply {
        enum class Kind {
            Result,    // result holds the answer
            Error,     // the server answered with a JSON-RPC error
            TimedOut,  // no answer by the deadline; the server was told to give up on it
            Cancelled, // a stop was requested; the server was told to give up on it
            Closed,    // the connection is closed (closedReason())
        };
        Kind kind = Kind::Closed;
        nlohmann::json result;
        std::string message; // all but Result: what happened, naming the server
    };

    virtual ~McpConnection() = default;
    McpConnection(const McpConnection&) = delete;
    McpConnection& operator=(const McpConnection&) = delete;

    // The handshake: initialize, then notifications/initialized. An error ends the connection.
    Result<McpServerInfo> initialize(Deadline deadline, const Cancellation* stop);
    // Every tool the server lists, page after page. An error leaves the connection as it is.
    Result<McpToolListing> listTools(Deadline deadline, const Cancellation* stop);
    Reply callTool(const std::string& tool, const nlohmann::json& arguments, Deadline deadline,
                   const Cancellation* stop);

    // Takes what the server sent while no request was waiting, without waiting: answers its requests,
    // notes a changed tool list, notices that it stopped.
    virtual void pollIdle() = 0;
    // notifications/tools/list_changed came since the last listTools.
    bool toolsChanged() const { return m_toolsChanged; }

    bool isOpen() const { return m_closedReason.empty(); }
    // Why it closed, naming the server.
    const std::string& closedReason() const { return m_closedReason; }
    const std::string& name() const { return m_name; }

    // The first step of close(), for servers closed together: a child's stdin closed, so they exit together.
    virtual void endInput() = 0;
    // Ends the connection politely, within kMcpExitGrace or two; nothing of it runs afterwards.
    virtual void close() = 0;

protected:
    explicit McpConnection(std::string name);

    // Sends message and waits for its answer (takeMessage() sets it), by deadline.
    virtual Reply request(protocol::Request message, Deadline deadline, const Cancellation* stop) = 0;
    // Sends a notification or an answer to the server's request, waiting for it to go at most until deadline.
    virtual void send(const protocol::Message& message, Deadline deadline) = 0;
    // Ends the connection now, reason kept (closedReason()).
    virtual void fail(std::string reason) = 0;

    // What the server sent, for the transports to hand on: its requests answered, list_changed noted, the
    // answer to the request waiting kept for takeAnswer.
    void takeMessage(protocol::Message message, Deadline sendBy);
    // Before a request is sent: the answer to wait for.
    void await(const protocol::Id& id);
    bool answered() const { return m_answer.has_value(); }
    // The answer taken, as a Reply for method.
    Reply takeAnswer(const std::string& method);
    // The request waiting failed on the way (a refusal, the network): nothing more is waited for.
    void forgetAwaited();
    // Gives up on the request waiting: the server is told, best effort, by sendBy.
    Reply giveUp(const protocol::Id& id, Reply::Kind kind, std::string why, Deadline sendBy);
    // Records why it closed (once) and forgets the request waiting.
    void markClosed(std::string reason);

    std::string m_name;
    std::string m_label; // "MCP server \"NAME\""

private:
    std::int64_t m_nextId = 1;
    std::optional<protocol::Id> m_awaiting;
    std::optional<protocol::Message> m_answer;
    bool m_toolsChanged = false;
    std::string m_closedReason;
};

// Whole seconds from one moment to another, rounded up ("3 s"), for the messages that say how long was waited.
std::string secondsBetween(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to);

} // namespace warren::agent
