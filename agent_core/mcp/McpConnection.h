#pragma once
// One MCP server over stdio (MCP's stdio transport), the process edge of agent_core/mcp. The server runs as
// the agent's child, inside the task's sandbox as the agent's tools do, started as a tool's process is
// (ChildStart: its own process group, nothing of the agent's inherited) in the workspace, with the agent's
// environment and the entry's env; the reaper that ends what each tool call leaves behind spares its
// group (spareProcessGroup) until it is closed. Messages are JSON-RPC, one per line each way; a line over
// kMaxMcpFrameBytes ends the connection. One request at a time, each with a deadline, waited for with
// poll() on the server's pipes, its pidfd and the stop's fd; meanwhile the server's requests are answered
// (McpWire: ping) and notifications/tools/list_changed is noted. A server that cannot start, stops, misses
// a deadline or sends what is not JSON-RPC becomes a message that names it and quotes the end of its
// stderr; nothing here throws, and nothing waits without a deadline.
//
// For one thread, the one that launched it: the signal that ends the server when the agent dies follows
// that thread.

#include "agent_core/mcp/McpServers.h"
#include "agent_core/mcp/McpWire.h"
#include "agent_core/tools/Cancellation.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warren::agent {

inline constexpr std::size_t kMaxMcpFrameBytes = 8 * 1024 * 1024; // one message, without its newline
// Lines that are not JSON-RPC messages tolerated (a server that logs to stdout); one more closes it.
inline constexpr int kMaxMcpGarbageLines = 10;
inline constexpr std::size_t kMcpStderrTailBytes = 4096; // kept for the messages that say why it stopped
// On close: how long the server has to exit once its stdin is closed, and again after SIGTERM.
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

    // Starts a stdio server's command; nothing is said to it yet (initialize). environment: the agent's,
    // "NAME=VALUE", to which the server's env is added.
    static Result<std::unique_ptr<McpConnection>> launch(const McpServer& server,
                                                         const std::vector<std::string>& environment,
                                                         const std::filesystem::path& workdir);
    ~McpConnection(); // close()
    McpConnection(const McpConnection&) = delete;
    McpConnection& operator=(const McpConnection&) = delete;

    // The handshake: initialize, then notifications/initialized. An error ends the server.
    Result<McpServerInfo> initialize(Deadline deadline, const Cancellation* stop);
    // Every tool the server lists, page after page. An error leaves the connection as it is.
    Result<McpToolListing> listTools(Deadline deadline, const Cancellation* stop);
    Reply callTool(const std::string& tool, const nlohmann::json& arguments, Deadline deadline,
                   const Cancellation* stop);

    // Takes what the server sent while no request was waiting, without waiting: answers its requests,
    // notes a changed tool list, notices that it stopped.
    void pollIdle();
    // notifications/tools/list_changed came since the last listTools.
    bool toolsChanged() const { return m_toolsChanged; }

    bool isOpen() const { return m_closedReason.empty(); }
    // Why it closed, naming the server (with the end of its stderr when it stopped by itself).
    const std::string& closedReason() const { return m_closedReason; }
    const std::string& name() const { return m_name; }
    pid_t pid() const { return m_pid; }

    // Closes its stdin, the first step of close(): servers told so together exit together.
    void endInput();
    // Stdin closed, kMcpExitGrace to exit, SIGTERM to its group, kMcpExitGrace again, SIGKILL; reaped,
    // with whatever of its group is left. Nothing of it runs afterwards.
    void close();

private:
    enum class Wait { Progress, Stopped };

    McpConnection(std::string name, pid_t pid, UniqueFd pidfd, UniqueFd input, UniqueFd output,
                  UniqueFd errors);

    // Sends message (its id from m_nextId) and waits for its answer.
    Reply request(protocol::Request message, Deadline deadline, const Cancellation* stop);
    void queue(const protocol::Message& message);
    // Writes what is queued, until the deadline at most (now: only what goes without waiting).
    void flush(Deadline deadline);
    // One poll() until wake: reads what came, writes what is queued, notices an exit or a stop.
    Wait waitOnce(Deadline wake, const Cancellation* stop);
    void readOutput();
    void readErrors();
    void writeQueued();
    void takeBytes(std::string_view bytes);
    void handleLine(const std::string& line);
    void noteGarbage(const std::string& line, const std::string& why);
    bool checkExited();
    // Ends the connection now: the reason kept, the group killed and reaped.
    void fail(std::string reason);
    // fail() for a server whose stdout or stdin closed: with how it exited, when it did.
    void failAsGone(const char* closedEnd);
    // Waits until it exits or until, reading its stderr (and dropping its stdout with drainOutput).
    bool awaitExit(Deadline until, bool drainOutput);
    void endProcess(bool politely);
    std::string stoppedMessage();
    std::string stderrTail() const;

    std::string m_name;
    std::string m_label; // "MCP server \"NAME\""
    pid_t m_pid = -1;    // also its process group; -1 once reaped
    UniqueFd m_pidfd;
    UniqueFd m_input; // a socket (MSG_NOSIGNAL: a server gone is an EPIPE, never a SIGPIPE)
    UniqueFd m_output;
    UniqueFd m_errors;
    bool m_exited = false;
    std::string m_howItExited; // "exit status 1", "killed by signal 9", once m_exited

    std::string m_outgoing;
    std::string m_partialLine;
    std::string m_stderrTail;
    bool m_stderrCut = false;
    std::int64_t m_nextId = 1;
    std::optional<protocol::Id> m_awaiting;
    std::optional<protocol::Message> m_answer;
    int m_garbageLines = 0;
    bool m_toolsChanged = false;
    std::string m_closedReason;
};

} // namespace warren::agent
