#pragma once
// One MCP server over stdio (MCP's stdio transport), the process edge of agent_core/mcp. The server runs as
// the agent's child, inside the task's sandbox as the agent's tools do, started as a tool's process is
// (ChildStart: its own process group, nothing of the agent's inherited) in the workspace, with the agent's
// environment and the entry's env; the reaper that ends what each tool call leaves behind spares its
// group (spareProcessGroup) until it is closed. Messages are JSON-RPC, one per line each way; a line over
// kMaxMcpFrameBytes ends the connection. A request is waited for with poll() on the server's pipes, its
// pidfd and the stop's fd. A server that cannot start, stops, misses a deadline or sends what is not
// JSON-RPC becomes a message that names it and quotes the end of its stderr.
//
// For one thread, the one that launched it: the signal that ends the server when the agent dies follows
// that thread.

#include "agent_core/mcp/McpConnection.h"
#include "common/UniqueFd.h"

#include <filesystem>
#include <memory>
#include <sys/types.h>
#include <vector>

namespace warren::agent {

// Lines that are not JSON-RPC messages tolerated (a server that logs to stdout); one more closes it.
inline constexpr int kMaxMcpGarbageLines = 10;
inline constexpr std::size_t kMcpStderrTailBytes = 4096; // kept for the messages that say why it stopped

class McpStdioConnection : public McpConnection {
public:
    // Starts a stdio server's command; nothing is said to it yet (initialize). environment: the agent's,
    // "NAME=VALUE", to which the server's env is added.
    static Result<std::unique_ptr<McpStdioConnection>> launch(const McpServer& server,
                                                              const std::vector<std::string>& environment,
                                                              const std::filesystem::path& workdir);
    ~McpStdioConnection() override; // close()

    void pollIdle() override;
    // Closes its stdin.
    void endInput() override;
    // Stdin closed, kMcpExitGrace to exit, SIGTERM to its group, kMcpExitGrace again, SIGKILL; reaped,
    // with whatever of its group is left.
    void close() override;
    pid_t pid() const { return m_pid; }

protected:
    Reply request(protocol::Request message, Deadline deadline, const Cancellation* stop) override;
    void send(const protocol::Message& message, Deadline deadline) override;
    // The group killed and reaped.
    void fail(std::string reason) override;

private:
    enum class Wait { Progress, Stopped };

    McpStdioConnection(std::string name, pid_t pid, UniqueFd pidfd, UniqueFd input, UniqueFd output,
                       UniqueFd errors);

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
    // fail() for a server whose stdout or stdin closed: with how it exited, when it did.
    void failAsGone(const char* closedEnd);
    // Waits until it exits or until, reading its stderr (and dropping its stdout with drainOutput).
    bool awaitExit(Deadline until, bool drainOutput);
    void endProcess(bool politely);
    std::string stoppedMessage();
    std::string stderrTail() const;

    pid_t m_pid = -1; // also its process group; -1 once reaped
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
    int m_garbageLines = 0;
};

} // namespace warren::agent
